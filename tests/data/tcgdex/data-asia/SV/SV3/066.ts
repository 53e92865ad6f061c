import { Card } from "../../../interfaces"
import Set from "../SV3"

const card: Card = {
	set: Set,
	"name": {
		"ja": "リザードンex"
	},
	"category": "Pokemon",
	"hp": 330,
	"types": [
		"Darkness"
	],
	"stage": "Stage2",
	"suffix": "EX",
	"attacks": [
		{
			"cost": [
				"Fire",
				"Fire"
			],
			"name": {
				"ja": "バーニングダーク"
			},
			"damage": "180+",
			"effect": {
				"ja": "相手がすでにとったサイドの枚数×30ダメージ追加。"
			}
		}
	],
	"abilities": [
		{
			"name": {
				"ja": "れんごくしはい"
			},
			"effect": {
				"ja": "自分の番に、このカードを手札から出して進化させたとき、1回使える。自分の山札から「基本エネルギー」を3枚まで選び、自分のポケモンに好きなようにつける。そして山札を切る。"
			}
		}
	],
	"rarity": "Double rare"
}

export default card
