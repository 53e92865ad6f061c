import { Set } from '../../interfaces'

const set: Set = {
	"id": "SVLS",
	"name": {
		"ja": "スターターセット テラスタイプ：ステラ ソウブレイズex"
	}
}

export default set
