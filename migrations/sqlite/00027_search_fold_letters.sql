-- Search reads the letters Unicode does not decompose as the letters a
-- person types for them (item.FoldText: "æ" reads "ae", "œ" "oe", "ø" "o",
-- dotless "ı" "i"). Only a text with a character beyond ASCII can fold
-- differently: its search_fold is cleared here, and the start-up pass that
-- fills the derived columns works it out again (as 00022 did).
-- Down clears them the same way, for the older fold.

-- +goose Up
UPDATE tasks SET search_fold = NULL
    WHERE search_fold IS NOT NULL AND length(search_fold) <> length(CAST(search_fold AS BLOB));

-- +goose Down
UPDATE tasks SET search_fold = NULL
    WHERE search_fold IS NOT NULL AND length(search_fold) <> length(CAST(search_fold AS BLOB));
