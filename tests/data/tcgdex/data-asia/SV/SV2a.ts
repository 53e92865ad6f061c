import { Set } from '../../interfaces'

const set: Set = {
	"id": "SV2a",
	"name": {
		"ja": "ポケモンカード151",
		"ko": "포켓몬 카드 151",
		"id": "Kartu Pokémon 151"
	}
}

export default set
