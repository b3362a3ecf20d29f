package main

import (
	"github.com/spf13/cobra"
)

// chatOptions are the flags of `assistant chat`.
type chatOptions struct {
	Message      string // -m: answer this one message and exit; "-" reads standard input
	New          bool   // start a new conversation instead of resuming the last
	Conversation int64  // resume this conversation
	MaxSteps     int    // model turns per message before giving up
	Settings     chatSettings
}

func newChatCmd(a *app) *cobra.Command {
	var o chatOptions
	cmd := &cobra.Command{
		Use:   "chat [-m MESSAGE]",
		Short: "Talk with a model that keeps your tasks and calendar",
		Long: `Open a chat in the terminal with a model that works on your tasks and
calendar through the tools; each tool call shows as one line. With -m, answer
one message and exit (for scripts; -m - reads it from standard input).

The model is any OpenAI-compatible Chat Completions server: --base-url (or
OPENAI_BASE_URL), --model (or ASSISTANT_MODEL) and OPENAI_API_KEY. With no
key and no base URL, a local Ollama at http://localhost:11434/v1 is used.
The last conversation resumes unless --new or --conversation is given.`,
		Example: `  assistant chat
  assistant chat -m "What is on my calendar this week?"
  OPENAI_API_KEY=sk-... ASSISTANT_MODEL=gpt-4.1-mini assistant chat
  assistant chat --base-url http://localhost:8080/v1 --model qwen3`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Settings = a.chatSettings(cmd)
			return runChat(cmd, a, o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Message, "message", "m", "", "answer this one message and exit (- reads standard input)")
	f.BoolVar(&o.New, "new", false, "start a new conversation")
	f.Int64Var(&o.Conversation, "conversation", 0, "resume this conversation by id")
	f.IntVar(&o.MaxSteps, "max-steps", 12, "model turns per message before stopping")
	f.String("model", "", "the model name (env ASSISTANT_MODEL)")
	f.String("base-url", "", "an OpenAI-compatible endpoint (env OPENAI_BASE_URL)")
	return cmd
}

// runChat is the chat front's entry point; the agent package's owner fills
// it in. It returns exitNoModel when no model answers.
func runChat(cmd *cobra.Command, a *app, o chatOptions) error {
	_ = o
	return notReady("chat")
}
