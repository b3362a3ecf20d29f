package tasks

import "github.com/assistant-dev/assistant/task"

// label is how a task is named to the model: "t12".
func label(id int64) string { return task.Label(id) }
