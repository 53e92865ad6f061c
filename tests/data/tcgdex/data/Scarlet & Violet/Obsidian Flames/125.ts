import { Card } from "../../../interfaces"
import Set from "../Obsidian Flames"

const card: Card = {
	set: Set,
	"name": {
		"fr": "Dracaufeu-ex",
		"en": "Charizard ex",
		"de": "Glurak-ex"
	},
	"category": "Pokemon",
	"hp": 330,
	"types": [
		"Darkness"
	],
	"stage": "Stage2",
	"suffix": "ex",
	"dexId": [
		6
	],
	"attacks": [
		{
			"cost": [
				"Fire",
				"Fire"
			],
			"name": {
				"fr": "Obscurité Brûlante",
				"en": "Burning Darkness",
				"de": "Brennende Finsternis"
			},
			"effect": {
				"fr": "Cette attaque inflige 30 dégâts supplémentaires pour chaque carte Récompense que votre adversaire a récupérée.",
				"en": "This attack does 30 more damage for each Prize card your opponent has taken.",
				"de": "Diese Attacke fügt für jede von deinem Gegner genommene Preiskarte 30 Schadenspunkte mehr zu."
			},
			"damage": "180+"
		}
	],
	"abilities": [
		{
			"name": {
				"fr": "Règne Infernal",
				"en": "Infernal Reign",
				"de": "Infernalische Herrschaft"
			},
			"effect": {
				"fr": "Lorsque vous jouez ce Pokémon de votre main pour faire évoluer l'un de vos Pokémon pendant votre tour, vous pouvez chercher dans votre deck jusqu'à 3 cartes Énergie {R} de base et les attacher à vos Pokémon comme il vous plaît. Mélangez ensuite votre deck.",
				"en": "When you play this Pokémon from your hand to evolve 1 of your Pokémon during your turn, you may search your deck for up to 3 Basic {R} Energy cards and attach them to your Pokémon in any way you like. Then, shuffle your deck.",
				"de": "Wenn du dieses Pokémon aus deiner Hand spielst, um 1 deiner Pokémon während deines Zuges zu entwickeln, kannst du dein Deck nach bis zu 3 Basis-{R}-Energiekarten durchsuchen und sie beliebig an deine Pokémon anlegen. Mische anschließend dein Deck."
			}
		}
	],
	"evolveFrom": {
		"fr": "Reptincel",
		"en": "Charmeleon",
		"de": "Glutexo"
	},
	"rarity": "Double rare"
}

export default card
