import { Set } from '../../interfaces'

const set: Set = {
	"id": "SV1S",
	"name": {
		"ja": "スカーレットex",
		"ko": "스칼렛ex",
		"id": "Scarlet ex"
	}
}

export default set
