package train

import "github.com/deathstacks/deathstacks/model"

// LoadNetwork reads the network of a model path the way az players load
// theirs (see [Models]): an exported player, a checkpoint, a network
// snapshot or a run directory (its latest checkpoint); "" for the built-in
// player's. Other languages' bindings read its weights from it.
func LoadNetwork(path string) (*model.Network, error) {
	t, err := loadTrained(path)
	if err != nil {
		return nil, err
	}
	return t.net, nil
}
