import { Set } from '../../interfaces'

const set: Set = {
	"id": "SV4a",
	"name": {
		"ja": "レイジングサーフ",
		"ko": "샤이니트레저 ex",
		"id": "Harta Berkilau ex"
	}
}

export default set
