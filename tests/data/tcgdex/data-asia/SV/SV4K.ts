import { Set } from '../../interfaces'

const set: Set = {
	"id": "SV4K",
	"name": {
		"ja": "古代の咆哮",
		"ko": "고대의 포효"
	}
}

export default set
