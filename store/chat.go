package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// NewConversation starts an empty chat history for owner and returns its id.
func (s *Store) NewConversation(ctx context.Context, owner int64) (int64, error) {
	now := s.now().Unix()
	var id int64
	err := s.db.QueryRowContext(ctx, `INSERT INTO conversations (owner_id, created, updated)
		VALUES (?, ?, ?) RETURNING id`, owner, now, now).Scan(&id)
	if err != nil {
		return 0, s.troubled(fmt.Errorf("cannot start a conversation for person %d: %w", owner, err))
	}
	return id, nil
}

// LastConversation is owner's most recently updated conversation, for
// resuming a chat; ErrNotFound when owner has none.
func (s *Store) LastConversation(ctx context.Context, owner int64) (int64, error) {
	var id int64
	err := s.db.QueryRowContext(ctx, `SELECT id FROM conversations WHERE owner_id = ?
		ORDER BY updated DESC, id DESC LIMIT 1`, owner).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("there is no earlier conversation to resume: %w", ErrNotFound)
	}
	return id, err
}

// AppendMessages adds messages, in order, to owner's conversation conv.
// Each is one JSON object as the front keeps it (an OpenAI chat message);
// its "role" is copied into a column. ErrNotFound when conv is not owner's.
func (s *Store) AppendMessages(ctx context.Context, owner, conv int64, msgs []json.RawMessage) error {
	return s.troubled(s.appendMessages(ctx, owner, conv, msgs))
}

func (s *Store) appendMessages(ctx context.Context, owner, conv int64, msgs []json.RawMessage) error {
	type head struct {
		Role string `json:"role"`
	}
	roles := make([]string, len(msgs))
	for i, m := range msgs {
		var h head
		if err := json.Unmarshal(m, &h); err != nil {
			return fmt.Errorf("message %d is not a JSON object: %v", i+1, err)
		}
		roles[i] = h.Role
	}
	tx, end, err := s.beginWrite(ctx, owner)
	if err != nil {
		return err
	}
	defer end()
	now := s.now().Unix()
	r, err := tx.ExecContext(ctx, `UPDATE conversations SET updated = ? WHERE id = ? AND owner_id = ?`, now, conv, owner)
	if err != nil {
		return err
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return fmt.Errorf("conversation %d is not one of yours: %w", conv, ErrNotFound)
	}
	var seq int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM messages WHERE conversation_id = ?`, conv).Scan(&seq); err != nil {
		return err
	}
	for i, m := range msgs {
		seq++
		if _, err := tx.ExecContext(ctx, `INSERT INTO messages (conversation_id, seq, owner_id, role, payload, created)
			VALUES (?, ?, ?, ?, ?, ?)`, conv, seq, owner, roles[i], string(m), now); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// Messages returns owner's conversation conv, oldest first, each message
// as it was appended. ErrNotFound when conv is not owner's.
func (s *Store) Messages(ctx context.Context, owner, conv int64) ([]json.RawMessage, error) {
	var one int
	err := s.db.QueryRowContext(ctx, `SELECT 1 FROM conversations WHERE id = ? AND owner_id = ?`, conv, owner).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("conversation %d is not one of yours: %w", conv, ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT payload FROM messages WHERE conversation_id = ? AND owner_id = ?
		ORDER BY seq`, conv, owner)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []json.RawMessage
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, err
		}
		out = append(out, json.RawMessage(p))
	}
	return out, rows.Err()
}
