import { Set } from '../../interfaces'

const set: Set = {
	"id": "SV9a",
	"name": {
		"ja": "熱風のアリーナ"
	}
}

export default set
