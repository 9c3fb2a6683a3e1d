package builtin

import (
	"bytes"
	_ "embed"
	"io"
)

//go:embed player.dsnn
var player []byte

//go:embed anchor-2026-12.dsnn
var anchor []byte

// Name stands for the built-in player where a file name would go, such as
// in messages and in `deathstacks inspect`.
const Name = "the built-in player"

// AnchorModel is the model name of the anchor, where a path would go
// (az:model=anchor); AnchorTitle stands for it in messages.
const (
	AnchorModel = "anchor"
	AnchorTitle = "the anchor (the built-in player of 2026-12-03)"
)

// Open returns a reader of the built-in player file.
func Open() io.Reader { return bytes.NewReader(player) }

// Lookup returns the file of a built-in network by the model name that
// stands for it, and a title for messages: "" is the built-in player,
// [AnchorModel] the anchor. ok is false for any other name: a path.
func Lookup(model string) (file io.Reader, title string, ok bool) {
	switch model {
	case "":
		return Open(), Name, true
	case AnchorModel:
		return bytes.NewReader(anchor), AnchorTitle, true
	}
	return nil, "", false
}
