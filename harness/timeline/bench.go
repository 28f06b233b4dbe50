package timeline

import "time"

// BenchStart is where every benchmark's clock starts: a working morning in
// this century, not the epoch, so that the code runs at the times it will
// meet in service. Near the epoch, a week back is before 1970, and code
// indexed by absolute time takes paths it never takes in production.
var BenchStart = time.Date(2025, time.March, 3, 9, 30, 0, 0, time.UTC)
