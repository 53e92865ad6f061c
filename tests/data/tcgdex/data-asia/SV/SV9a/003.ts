import { Card } from "../../../interfaces"
import Set from "../SV9a"

const card: Card = {
	set: Set,
	"name": {
		"ja": "メガヤンマex"
	},
	"category": "Pokemon",
	"hp": 280,
	"types": [
		"Grass"
	],
	"stage": "Stage1",
	"suffix": "EX",
	"attacks": [
		{
			"cost": [
				"Grass",
				"Grass",
				"Grass",
				"Colorless"
			],
			"name": {
				"ja": "ジェットサイクロン"
			},
			"damage": 210,
			"effect": {
				"ja": "このポケモンについているエネルギーを3個選び、ベンチポケモン1匹につけ替える。"
			}
		}
	],
	"abilities": [
		{
			"name": {
				"ja": "バズブースト"
			},
			"effect": {
				"ja": "自分の番に、このポケモンがベンチからバトル場に出たとき、1回使える。自分の山札から「基本エネルギー」を3枚まで選び、このポケモンにつける。そして山札を切る。"
			}
		}
	],
	"rarity": "Double rare"
}

export default card
