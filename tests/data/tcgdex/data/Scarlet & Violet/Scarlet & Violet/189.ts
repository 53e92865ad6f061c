import { Set } from '../../interfaces'

const set: Set = {
	"name": {
		"en": "Professor's Research",
		"fr": "Recherches Professorales",
		"de": "Forschung des Professors"
	},
	"category": "Trainer",
	"trainerType": "Supporter",
	"rarity": "Rare",
	"effect": {
		"en": "Discard your hand and draw 7 cards.",
		"fr": "Défaussez votre main, puis piochez 7 cartes.",
		"de": "Lege deine Handkarten auf deinen Ablagestapel und ziehe 7 Karten. Du kannst während deines Zuges nur 1 Unterstützerkarte spielen."
	}
}

export default set
