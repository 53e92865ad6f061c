import { Set } from '../../interfaces'

const set: Set = {
	"id": "sv03",
	"name": {
		"de": "Obsidian Flammen",
		"en": "Obsidian Flames",
		"fr": "Flammes Obsidiennes"
	}
}

export default set
