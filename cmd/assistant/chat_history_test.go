package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestChatHistoryFiles(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "assistant.db")
	if got, want := chatHistoryPath(db, 3), filepath.Join(dir, "assistant.db.chat_history.3"); got != want {
		t.Errorf("chatHistoryPath = %q, want %q", got, want)
	}
	files := []string{"assistant.db", "assistant.db.chat_history.1", "assistant.db.chat_history.2", "chat_history",
		"other.db.chat_history.1", "assistant.db.chat_history.notes"}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	left := func() []string {
		es, _ := os.ReadDir(dir)
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		return names
	}
	if err := removeChatHistory(db, 2); err != nil {
		t.Fatal(err)
	}
	if err := removeChatHistory(db, 7); err != nil {
		t.Errorf("removing a history that does not exist: %v", err)
	}
	if slices.Contains(left(), "assistant.db.chat_history.2") || !slices.Contains(left(), "assistant.db.chat_history.1") {
		t.Errorf("after removing person 2's history: %v", left())
	}
	if err := removeChatHistories(db); err != nil {
		t.Fatal(err)
	}
	want := []string{"assistant.db", "assistant.db.chat_history.notes", "other.db.chat_history.1"}
	if got := left(); !slices.Equal(got, want) {
		t.Errorf("after removing every history: %v, want %v", got, want)
	}
	if err := removeChatHistories(filepath.Join(dir, "nowhere", "x.db")); err != nil {
		t.Errorf("a database folder that does not exist: %v", err)
	}
}
