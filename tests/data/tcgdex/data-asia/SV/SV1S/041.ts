import { Card } from "../../../interfaces"
import Set from "../SV1S"

const card: Card = {
	set: Set,
	"name": {
		"ja": "ルカリオ",
		"id": "Lucario"
	},
	"category": "Pokemon",
	"hp": 130,
	"types": [
		"Fighting"
	],
	"stage": "Stage1",
	"dexId": [
		448
	],
	"attacks": [
		{
			"cost": [
				"Fighting"
			],
			"name": {
				"ja": "アベンジナックル",
				"id": "Avenge Knuckle"
			},
			"damage": "30+",
			"effect": {
				"ja": "前の相手の番に、ワザのダメージで、自分のポケモンがきぜつしていたなら、120ダメージ追加。",
				"id": "Jika pada giliran lawan sebelumnya, ada Pokémon {Petarung} sendiri yang KO karena kerusakan akibat serangan, kerusakan yang diberikan bertambah sejumlah 120."
			}
		},
		{
			"cost": [
				"Fighting",
				"Colorless",
				"Colorless"
			],
			"name": {
				"ja": "かそくづき",
				"id": "Tusukan Akselerasi"
			},
			"damage": 120,
			"effect": {
				"ja": "次の自分の番、このポケモンは「かそくづき」が使えない。",
				"id": "Pada giliran sendiri berikutnya, Pokémon ini tidak dapat menggunakan Tusukan Akselerasi."
			}
		}
	],
	"rarity": "Uncommon"
}

export default card
