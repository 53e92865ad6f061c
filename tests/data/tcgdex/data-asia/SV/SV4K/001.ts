import { Card } from "../../../interfaces"
import Set from "../SV4K"

const card: Card = {
	set: Set,
	"name": {
		"ja": "ヤナップ",
		"ko": "야나프"
	},
	"category": "Pokemon",
	"hp": 70,
	"types": [
		"Grass"
	],
	"stage": "Basic",
	"dexId": [
		511
	],
	"attacks": [
		{
			"cost": [
				"Colorless"
			],
			"name": {
				"ja": "なかまをよぶ",
				"ko": "동료부르기"
			},
			"effect": {
				"ja": "自分の山札からたねポケモンを1枚選び、ベンチに出す。そして山札を切る。",
				"ko": "자신의 덱에서 기본 포켓몬을 1장 선택해서 벤치로 내보낸다. 그리고 덱을 섞는다."
			}
		},
		{
			"cost": [
				"Grass",
				"Colorless",
				"Colorless"
			],
			"name": {
				"ja": "やどりぎのタネ",
				"ko": "씨뿌리기"
			},
			"damage": 30,
			"effect": {
				"ja": "このポケモンのHPを「10」回復する。",
				"ko": "이 포켓몬의 HP를 「10」회복한다."
			}
		}
	],
	"rarity": "Common"
}

export default card
