package builtin

import (
	"bytes"
	_ "embed"
	"io"
)

//go:embed player.dsnn
var player []byte

// Name stands for the built-in player where a file name would go, such as
// in messages and in `deathstacks inspect`.
const Name = "the built-in player"

// Open returns a reader of the built-in player file.
func Open() io.Reader { return bytes.NewReader(player) }
