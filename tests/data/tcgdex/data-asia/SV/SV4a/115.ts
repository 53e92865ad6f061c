import { Card } from "../../../interfaces"
import Set from "../SV4a"

const card: Card = {
	set: Set,
	"name": {
		"ja": "リザードンex",
		"id": "Charizard ex"
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
				"ja": "バーニングダーク",
				"id": "Burning Dark"
			},
			"effect": {
				"ja": "相手がすでにとったサイドの枚数×30ダメージ追加。",
				"id": "Kerusakan yang diberikan bertambah sejumlah 30 untuk tiap lembar Kartu Point yang telah diambil lawan."
			},
			"damage": "180+"
		}
	],
	"abilities": [
		{
			"name": {
				"ja": "れんごくしはい",
				"id": "Dominasi Api Jahanam"
			},
			"effect": {
				"ja": "自分の番に、このカードを手札から出して進化させたとき、1回使える。自分の山札から「基本エネルギー」を3枚まで選び、自分のポケモンに好きなようにつける。そして山札を切る。",
				"id": "Dapat digunakan 1 kali pada giliran sendiri saat memasukkan kartu ini dari Kartu Pegangan untuk melakukan evolusi. Pilih paling banyak 3 lembar Energi Dasar {Api} dari Deck sendiri, lalu kenakan sesukanya pada Pokémon sendiri. Kemudian, kocok Deck."
			}
		}
	],
	"rarity": "Double rare"
}

export default card
