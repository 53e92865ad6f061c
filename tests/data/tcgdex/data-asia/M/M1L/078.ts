import { Card } from "../../../interfaces"
import Set from "../M1L"

const card: Card = {
	set: Set,
	"name": {
		"ja": "メガルカリオex"
	},
	"category": "Pokemon",
	"hp": 340,
	"types": [
		"Fighting"
	],
	"stage": "Stage1",
	"suffix": "EX",
	"dexId": [
		448
	],
	"attacks": [
		{
			"name": {
				"ja": "はどうづき"
			},
			"damage": 130,
			"cost": [
				"Fighting"
			],
			"effect": {
				"ja": "自分のトラッシュから「基本エネルギー」を3枚まで選び、ベンチポケモンに好きなようにつける。"
			}
		},
		{
			"name": {
				"ja": "メガブレイブ"
			},
			"damage": 270,
			"cost": [
				"Fighting",
				"Fighting"
			],
			"effect": {
				"ja": "次の自分の番、このポケモンは「メガブレイブ」が使えない。"
			}
		}
	],
	"evolveFrom": {
		"ja": "リオル"
	},
	"rarity": "Ultra Rare"
}

export default card
