package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/assistant-dev/assistant/store"
)

// StoreConversation is a Conversation kept in the store's conversations
// and messages tables, one row per message as OpenAI's JSON, so a chat
// resumes after the program exits. Every Append is one transaction, so a
// step's tool calls and their answers are stored together or not at all.
// Owner is the person's id: the store refuses a conversation that is not
// theirs (store.ErrNotFound).
type StoreConversation struct {
	Store *store.Store
	Owner int64
	ID    int64
}

// NewStoreConversation starts an empty conversation for owner (`assistant
// chat --new`).
func NewStoreConversation(ctx context.Context, s *store.Store, owner int64) (*StoreConversation, error) {
	id, err := s.NewConversation(ctx, owner)
	if err != nil {
		return nil, err
	}
	return &StoreConversation{Store: s, Owner: owner, ID: id}, nil
}

// ResumeStoreConversation returns owner's most recently updated
// conversation, or a new one when owner has none (`assistant chat`).
func ResumeStoreConversation(ctx context.Context, s *store.Store, owner int64) (*StoreConversation, error) {
	id, err := s.LastConversation(ctx, owner)
	if errors.Is(err, store.ErrNotFound) {
		return NewStoreConversation(ctx, s, owner)
	}
	if err != nil {
		return nil, err
	}
	return &StoreConversation{Store: s, Owner: owner, ID: id}, nil
}

// OpenStoreConversation returns owner's conversation id, checking that it
// exists and is theirs (`assistant chat --conversation ID`).
func OpenStoreConversation(ctx context.Context, s *store.Store, owner, id int64) (*StoreConversation, error) {
	if _, err := s.Messages(ctx, owner, id); err != nil {
		return nil, err
	}
	return &StoreConversation{Store: s, Owner: owner, ID: id}, nil
}

// Load returns the stored messages, oldest first.
func (c *StoreConversation) Load(ctx context.Context) ([]openai.ChatCompletionMessage, error) {
	raws, err := c.Store.Messages(ctx, c.Owner, c.ID)
	if err != nil {
		return nil, err
	}
	msgs := make([]openai.ChatCompletionMessage, len(raws))
	for i, r := range raws {
		if err := json.Unmarshal(r, &msgs[i]); err != nil {
			// The decoder's words name Go types; they are not for the person.
			return nil, fmt.Errorf("message %d of conversation %d cannot be read as a chat message; start a new conversation with --new", i+1, c.ID)
		}
	}
	return msgs, nil
}

// Append stores msgs at the end, in one transaction.
func (c *StoreConversation) Append(ctx context.Context, msgs ...openai.ChatCompletionMessage) error {
	raws := make([]json.RawMessage, len(msgs))
	for i, m := range msgs {
		b, err := json.Marshal(m)
		if err != nil {
			return fmt.Errorf("message %d cannot be stored: %v", i+1, err)
		}
		raws[i] = b
	}
	return c.Store.AppendMessages(ctx, c.Owner, c.ID, raws)
}

// ConversationInfo is one of a person's stored conversations as a listing
// shows it: the store's summary and the first line the person wrote in
// it, whitespace collapsed ("" when they wrote nothing yet).
type ConversationInfo struct {
	store.ConversationSummary
	FirstLine string
}

// ListStoreConversations returns owner's conversations, the one `assistant
// chat` would resume first, for `assistant chat --list`.
func ListStoreConversations(ctx context.Context, s *store.Store, owner int64) ([]ConversationInfo, error) {
	sums, err := s.Conversations(ctx, owner, 0)
	if err != nil {
		return nil, err
	}
	out := make([]ConversationInfo, len(sums))
	for i, c := range sums {
		out[i].ConversationSummary = c
		var m openai.ChatCompletionMessage
		if len(c.FirstUser) > 0 && json.Unmarshal(c.FirstUser, &m) == nil {
			first, _, _ := strings.Cut(strings.TrimSpace(m.Content), "\n")
			out[i].FirstLine = strings.Join(strings.Fields(first), " ")
		}
	}
	return out, nil
}
