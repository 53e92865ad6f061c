import { Card } from "../../../interfaces"
import Set from "../SV2a"

const card: Card = {
	set: Set,
	"name": {
		"ja": "ピカチュウ",
		"id": "Pikachu"
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
			"name": {
				"ja": "じゅうでん",
				"id": "Charge"
			},
			"cost": [
				"Lightning"
			],
			"effect": {
				"ja": "自分の山札から「基本[L]エネルギー」を1枚選び、このポケモンにつける。そして山札を切る。",
				"id": "Pilih 1 lembar Energi Dasar {Listrik} dari Deck sendiri, lalu kenakan pada Pokémon ini. Kemudian, kocok Deck."
			}
		},
		{
			"name": {
				"ja": "ピカパンチ",
				"id": "Pika Punch"
			},
			"damage": 50,
			"cost": [
				"Lightning",
				"Lightning",
				"Colorless"
			]
		}
	],
	"rarity": "Common"
}

export default card
