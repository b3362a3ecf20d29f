package e2e

import "github.com/assistant-dev/assistant/tools"

// The exit codes of the binary these tests expect, as cmd/assistant's
// exit.go documents them: a tool's own result code for `assistant call`,
// and the codes from 7 up for failures only the binary has. They are
// written out here, not imported, because they are the binary's public
// contract with scripts.
const (
	exitInvalid = tools.CodeInvalid // 1: a value is wrong
	exitConfig  = 10                // the configuration file could not be read
)
