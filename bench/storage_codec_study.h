// The storage benchmark's codec study (edgemond_storage_bench --codec-study): the measurement
// behind the block format's value codecs.

#ifndef EDGEMOND_BENCH_STORAGE_CODEC_STUDY_H_
#define EDGEMOND_BENCH_STORAGE_CODEC_STUDY_H_

namespace edgemond::bench {

// Encodes the simulated device's samples, a flush window at a time (--flush-seconds samples per
// series), with each candidate encoding, and reports bytes per sample by metric: the
// measurement behind the codec choice (docs/adr/0002-storage-v2-blocks.md). Payload only: the
// block format's shared timestamps, directory and presence, and SQLite's row and page overhead,
// are in the last lines and in the day run.
// `series_count` simulated series over `hours`, flushed every `flush_seconds`; prints a table.
void RunCodecStudy(int series_count, double hours, int flush_seconds);

}  // namespace edgemond::bench

#endif  // EDGEMOND_BENCH_STORAGE_CODEC_STUDY_H_
