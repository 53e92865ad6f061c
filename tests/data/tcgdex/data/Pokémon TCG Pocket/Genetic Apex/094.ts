import { Card } from "../../../interfaces"
import Set from "../Genetic Apex"

const card: Card = {
	set: Set,
	"name": {
		"en": "Pikachu",
		"fr": "Pikachu",
		"de": "Pikachu",
		"ko": "피카츄"
	},
	"category": "Pokemon",
	"hp": 60,
	"types": [
		"Lightning"
	],
	"stage": "Basic",
	"dexId": [
		25
	],
	"attacks": [
		{
			"cost": [
				"Lightning"
			],
			"name": {
				"en": "Gnaw",
				"fr": "Ronge",
				"de": "Nagen",
				"ko": "갉기"
			},
			"damage": "20"
		}
	],
	"rarity": "One Diamond"
}

export default card
