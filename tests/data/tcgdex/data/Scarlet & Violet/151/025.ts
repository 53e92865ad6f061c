import { Card } from "../../../interfaces"
import Set from "../151"

const card: Card = {
	set: Set,
	"name": {
		"fr": "Pikachu",
		"en": "Pikachu",
		"de": "Pikachu"
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
				"fr": "Chargeur",
				"en": "Charge",
				"de": "Ladevorgang"
			},
			"effect": {
				"fr": "Cherchez dans votre deck une carte Énergie {L} de base, puis attachez-la à ce Pokémon. Mélangez ensuite votre deck.",
				"en": "Search your deck for a Basic {L} Energy card and attach it to this Pokémon. Then, shuffle your deck.",
				"de": "Durchsuche dein Deck nach 1 Basis-{L}-Energiekarte und lege sie an dieses Pokémon an. Mische anschließend dein Deck."
			}
		},
		{
			"cost": [
				"Lightning",
				"Lightning",
				"Colorless"
			],
			"name": {
				"fr": "Pika-Poing",
				"en": "Pika Punch",
				"de": "Pikahieb"
			},
			"damage": 50
		}
	],
	"rarity": "Common"
}

export default card
