import { Set } from '../../interfaces'

const set: Set = {
	"id": "sv01",
	"name": {
		"de": "Karmesin & Purpur",
		"en": "Scarlet & Violet",
		"fr": "Écarlate et Violet"
	}
}

export default set
