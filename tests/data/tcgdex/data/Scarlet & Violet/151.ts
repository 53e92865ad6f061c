import { Set } from '../../interfaces'

const set: Set = {
	"id": "sv03.5",
	"name": {
		"de": "151",
		"en": "151",
		"fr": "151"
	}
}

export default set
