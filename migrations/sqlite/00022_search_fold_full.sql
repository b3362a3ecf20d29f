-- Search folds with Unicode full case folding and compatibility
-- decomposition now (item.FoldText: "Straße" reads "strasse", the ligature
-- "ﬁ" reads "fi"). Only a text with a character beyond ASCII can fold
-- differently: its search_fold is cleared here (text length in characters
-- differs from its length in bytes), and the start-up pass that fills the
-- derived columns of rows older than 00012 works it out again.
-- Down clears them the same way, for the older fold.

-- +goose Up
UPDATE tasks SET search_fold = NULL
    WHERE search_fold IS NOT NULL AND length(search_fold) <> length(CAST(search_fold AS BLOB));

-- +goose Down
UPDATE tasks SET search_fold = NULL
    WHERE search_fold IS NOT NULL AND length(search_fold) <> length(CAST(search_fold AS BLOB));
