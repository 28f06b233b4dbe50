// Package viewerr holds the errors of level 5's counter. They live in a
// package of their own so that the learner's counter, the reference and
// the level's spec share one definition: package pageviews re-exports them
// (pageviews.ErrTimeWentBackwards is viewerr.ErrTimeWentBackwards), and the
// spec tells them apart with errors.Is. Package pageviews documents when
// each is returned. You do not need to edit this package.
package viewerr

import "errors"

// The errors of Add and Count.
var (
	// ErrTimeWentBackwards is pageviews.ErrTimeWentBackwards.
	ErrTimeWentBackwards = errors.New("pageviews: time went backwards")
	// ErrNegativeViews is pageviews.ErrNegativeViews.
	ErrNegativeViews = errors.New("pageviews: negative number of views")
	// ErrTimeOutOfRange is pageviews.ErrTimeOutOfRange.
	ErrTimeOutOfRange = errors.New("pageviews: time outside the years 1678 to 2262")
)
