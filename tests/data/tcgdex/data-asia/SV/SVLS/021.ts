import { Card } from "../../../interfaces"
import Set from "../SVLS"

const card: Card = {
	set: Set,
	"name": {
		"ja": "博士の研究"
	},
	"category": "Trainer",
	"trainerType": "Supporter",
	"rarity": "None",
	"effect": {
		"ja": "自分の手札をすべてトラッシュし、山札を7枚引く。"
	}
}

export default card
