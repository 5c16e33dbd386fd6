#ifndef SNAPSORT_VIDEO_H
#define SNAPSORT_VIDEO_H
#include <stddef.h>

#define SS_VIDEO_MSG 256
/// The most frames one probe samples.
#define SS_VIDEO_MAX_FRAMES 32
/// The side of a sampled frame (grey, squeezed to a square).
#define SS_VIDEO_SIDE 32
/// The long side of the poster a probe makes for the page's cards.
#define SS_VIDEO_POSTER_SIDE 320

/// What FFmpeg's libavformat and libavcodec tell of one video file. The sampled frames go to
/// buffers the caller owns (a struct holding them made Swift import a 32 768-element tuple).
typedef struct {
    double duration;      ///< seconds; < 0 when the container says none
    int width, height;    ///< the video stream's coded picture size; 0 when unknown
    int rotation;         ///< degrees from the display matrix (0, 90, 180, 270)
    int has_video;        ///< 1 when the file holds a video stream
    int decodable;        ///< 1 when a decoder for its codec is at hand
    int frames;           ///< frames sampled into the caller's `times` and `pixels`
    int budget_hit;       ///< 1 when the time budget cut the sampling short
    int decoded;          ///< frames decoded in all (the work the probe did)
    int poster_width, poster_height;  ///< the poster's size (0 when there is none)
    char codec[32];       ///< the video codec's short name ("h264", "mjpeg", …)
    char container[32];   ///< the demuxer's short name ("avi", "mpeg", "mpegts", …)
} ss_video_probe;

/// Opens `path` with libavformat, reads its duration and video stream, and samples up to `want`
/// (≤ SS_VIDEO_MAX_FRAMES) frames at evenly spaced times over its length into `times` (seconds)
/// and `pixels` (SS_VIDEO_SIDE² grey each), in time order: a seek to the keyframe before each
/// time, then the frames up to it decoded (one thread, reduced resolution where the decoder can,
/// frames nothing refers to skipped), the middle first and then ever finer (so what the budget
/// allows is spread over the whole length). A time more than a few dozen frames past its keyframe
/// (a long GOP) costs a second round, at most a few hundred frames, while the budget lasts; when
/// most are, or the stream has no index to seek by (MPEG-TS) and is short enough, it is decoded in
/// order once instead. Frames the decoder concealed are never
/// samples. Past `budget_s` seconds of work (the thread's CPU time, or an eighth of the wall time
/// when more) sampling stops. With `poster_side` > 0, `*poster` is the frame nearest the middle as
/// RGB (malloc'd, ss_video_free), upright (the display rotation applied), its long side at most
/// `poster_side` (`poster_width`×`poster_height`); NULL when no frame decodes.
/// Returns 0 (frames may be 0: see `decodable`), or -1 with a message when the file is not a
/// video libavformat can open. libav's own logging is silenced.
int ss_video_probe_file(const char *path, int want, double budget_s, int poster_side, ss_video_probe *out, double *times,
                        unsigned char *pixels, unsigned char **poster, char message[SS_VIDEO_MSG]);
void ss_video_free(void *p);
#endif
