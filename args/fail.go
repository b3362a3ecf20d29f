package args

// Fail records a failure found by a check outside this package (a window
// whose “to” is before its “from”, a rule that needs a “due”), so that it
// reaches Err like a getter's own. The first failure wins; sentence is the
// whole sentence for the model and should name the argument in “…”.
func (a *Args) Fail(name, sentence string) { a.fail(name, sentence) }
