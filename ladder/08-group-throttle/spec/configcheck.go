package spec

import (
	"fmt"
	"math/big"

	"github.com/rateladder/rateladder/ladder/08-group-throttle/limits"
)

// modelCheck refuses what the README says New refuses, with the field.
func modelCheck(field string, l limits.Limit) error {
	requests, per := big.NewInt(int64(l.Requests)), big.NewInt(int64(l.Per))
	switch {
	case l.Algorithm < limits.FixedWindow || l.Algorithm > limits.TokenBucket:
		return fmt.Errorf("%s.Algorithm is unknown", field)
	case l.Requests < 1:
		return fmt.Errorf("%s.Requests must be at least 1", field)
	case l.Per <= 0:
		return fmt.Errorf("%s.Per must be positive", field)
	case l.Algorithm == limits.SlidingWindow && (buckets(l) < 2 || buckets(l) > limits.MaxBuckets):
		return fmt.Errorf("%s.Buckets must be 0 or from 2 to %d", field, limits.MaxBuckets)
	case l.Algorithm == limits.SlidingWindow && int64(l.Per)%(buckets(l)-1) != 0:
		return fmt.Errorf("%s.Per must divide into Buckets-1", field)
	case l.Algorithm == limits.SlidingWindow && fits(new(big.Int).Add(per, big.NewInt(int64(l.Per)/(buckets(l)-1)))) != nil:
		return fmt.Errorf("%s.Per plus a bucket must fit in a time.Duration", field)
	case l.Algorithm == limits.TokenBucket && fits(new(big.Int).Div(new(big.Int).Mul(requests, per), new(big.Int).GCD(nil, nil, requests, per))) != nil:
		return fmt.Errorf("%s: Requests × Per / gcd(Requests, Per) must fit in an int64", field)
	}
	return nil
}

// fits returns an error if x is beyond the int64 range.
func fits(x *big.Int) error {
	if !x.IsInt64() {
		return fmt.Errorf("%v is beyond the int64 range", x)
	}
	return nil
}

// buckets is a sliding window's number of buckets: 2 when Buckets is 0.
func buckets(l limits.Limit) int64 {
	if l.Buckets == 0 {
		return 2
	}
	return int64(l.Buckets)
}
