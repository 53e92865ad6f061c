import { Set } from '../../interfaces'

const set: Set = {
	"id": "M1L",
	"name": {
		"ja": "メガブレイブ"
	}
}

export default set
