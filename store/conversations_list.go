package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// ConversationSummary describes one stored chat for a listing (`assistant
// chat --list`): its id, when it was started and when its last message
// was stored (UTC instants, whole seconds), how many messages it holds
// (every stored message: the person's, the model's and tool results), and
// the payload of its first message with role "user", as it was appended
// (nil when it has none yet).
type ConversationSummary struct {
	ID          int64
	Created     time.Time
	LastMessage time.Time // Created when the conversation holds no message
	Messages    int
	FirstUser   json.RawMessage
}

// Conversations lists owner's conversations, the most recently updated
// first (the order in which `assistant chat` would resume them), at most
// limit of them (limit ≤ 0: all). Another person's conversations are never
// listed.
func (s *Store) Conversations(ctx context.Context, owner int64, limit int) ([]ConversationSummary, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	rows, err := s.db.QueryContext(ctx, `SELECT c.id, c.created,
			coalesce((SELECT max(m.created) FROM messages m WHERE m.conversation_id = c.id AND m.owner_id = c.owner_id), c.created),
			(SELECT count(*) FROM messages m WHERE m.conversation_id = c.id AND m.owner_id = c.owner_id),
			(SELECT m.payload FROM messages m WHERE m.conversation_id = c.id AND m.owner_id = c.owner_id AND m.role = 'user'
				ORDER BY m.seq LIMIT 1)
		FROM conversations c WHERE c.owner_id = ?
		ORDER BY c.updated DESC, c.id DESC LIMIT ?`, owner, limitArg(limit))
	if err != nil {
		return nil, fmt.Errorf("cannot list the conversations of person %d: %w", owner, err)
	}
	defer rows.Close()
	var out []ConversationSummary
	for rows.Next() {
		var c ConversationSummary
		var created, last int64
		var first *string
		if err := rows.Scan(&c.ID, &created, &last, &c.Messages, &first); err != nil {
			return nil, err
		}
		c.Created, c.LastMessage = time.Unix(created, 0).UTC(), time.Unix(last, 0).UTC()
		if first != nil {
			c.FirstUser = json.RawMessage(*first)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
