import { Set } from '../../interfaces'

const set: Set = {
	"id": "SV3",
	"name": {
		"ja": "黒炎の支配者",
		"ko": "흑염의 지배자"
	}
}

export default set
