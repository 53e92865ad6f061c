import { Card } from "../../../interfaces"
import Set from "../Promos-A"

const card: Card = {
	set: Set,
	"name": {
		"en": "Professor's Research",
		"fr": "Recherches Professorales",
		"de": "Forschung des Professors",
		"ko": "박사의 연구"
	},
	"category": "Trainer",
	"trainerType": "Supporter",
	"rarity": "None",
	"effect": {
		"en": "Draw 2 cards.",
		"fr": "Piochez 2 cartes.",
		"de": "Ziehe 2 Karten.",
		"ko": "자신의 덱을 2장 뽑는다."
	}
}

export default card
