import { Set } from '../../interfaces'

const set: Set = {
	"id": "SVK",
	"name": {
		"ja": "デッキビルドBOX ステラミラクル"
	}
}

export default set
