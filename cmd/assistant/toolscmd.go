package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/catalog"
)

func newToolsCmd(a *app) *cobra.Command {
	var markdown bool
	cmd := &cobra.Command{
		Use:   "tools [TOOL]",
		Short: "List the tools, or show one tool's schema",
		Long: `List the tools every front offers (chat, MCP, call), one line each; with a
tool's name, show its description and the JSON Schema of its arguments.
--markdown writes the tool reference, docs/tools.md.`,
		Example: `  assistant tools
  assistant tools add_task
  assistant tools --markdown > docs/tools.md`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageError(cmd, "“%s” takes at most one tool name", cmd.CommandPath())
			}
			return nil
		},
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return newRegistry().Names(), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			reg := newRegistry()
			switch {
			case markdown && len(args) > 0:
				return usageError(cmd, "give either a tool's name or --markdown, not both")
			case markdown:
				a.printf("%s", catalog.Markdown(reg))
				return nil
			case len(args) == 1:
				t, ok := reg.Get(args[0])
				if !ok {
					res, _ := reg.Call(cmd.Context(), nil, args[0], nil)
					if len(reg.Names()) == 0 {
						return failf(exitInvalid, "there is no tool “%s”; this build has no tools yet", args[0])
					}
					return fail(exitInvalid, fmt.Errorf("%s", res.Err))
				}
				b, err := json.MarshalIndent(toolJSON(t), "", "  ")
				if err != nil {
					return fail(exitInternal, err)
				}
				a.printf("%s\n", b)
				return nil
			}
			w := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			for _, t := range reg.Tools() {
				fmt.Fprintf(w, "%s\t%s\n", t.Name, firstSentence(t.Description))
			}
			return w.Flush()
		},
	}
	cmd.Flags().BoolVar(&markdown, "markdown", false, "write the tool reference as Markdown")
	return cmd
}

// toolView is how `assistant tools NAME` shows a tool: the fields of an MCP
// tools/list entry, so what is shown is what clients get.
type toolView struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description"`
	Annotations map[string]bool `json:"annotations"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

func toolJSON(t tools.Tool) toolView {
	return toolView{
		Name:        t.Name,
		Title:       t.Title,
		Description: t.Description,
		Annotations: map[string]bool{
			"readOnlyHint":    t.ReadOnly,
			"destructiveHint": t.Destructive,
			"idempotentHint":  t.Idempotent,
		},
		InputSchema: t.Schema.JSON(),
	}
}

// firstSentence is the first sentence of a description, for one-line
// listings.
func firstSentence(s string) string { return catalog.FirstSentence(s) }
