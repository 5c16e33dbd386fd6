#ifndef SNAPSORT_VIDEO_H
#define SNAPSORT_VIDEO_H
#include <stddef.h>

#define SS_VIDEO_MSG 256
/// The most frames one probe samples.
#define SS_VIDEO_MAX_FRAMES 32
/// The side of a sampled frame (grey, squeezed to a square).
#define SS_VIDEO_SIDE 32

/// What FFmpeg's libavformat and libavcodec tell of one video file. The sampled frames go to
/// buffers the caller owns (a struct holding them made Swift import a 32 768-element tuple).
typedef struct {
    double duration;      ///< seconds; < 0 when the container says none
    int width, height;    ///< the video stream's coded picture size; 0 when unknown
    int rotation;         ///< degrees from the display matrix (0, 90, 180, 270)
    int has_video;        ///< 1 when the file holds a video stream
    int decodable;        ///< 1 when a decoder for its codec is at hand
    int frames;           ///< frames sampled into the caller's `times` and `pixels`
    int budget_hit;       ///< 1 when the time budget cut the sampling short or to keyframes
    char codec[32];       ///< the video codec's short name ("h264", "mjpeg", …)
    char container[32];   ///< the demuxer's short name ("avi", "mpeg", "mpegts", …)
} ss_video_probe;

/// Opens `path` with libavformat, reads its duration and video stream, and samples `want`
/// (≤ SS_VIDEO_MAX_FRAMES) frames at evenly spaced times over its length into `times` (seconds,
/// `want` of them) and `pixels` (`want` × SS_VIDEO_SIDE² bytes): a seek to the
/// keyframe before each time, then frames decoded up to that time (one thread, reduced
/// resolution where the decoder can), each scaled to SS_VIDEO_SIDE² grey. Past `budget_s`
/// seconds of work (the thread's CPU time, or an eighth of the wall time when more) the rest are
/// keyframes alone, and past twice it sampling stops.
/// Returns 0 (frames may be 0: see `decodable`), or -1 with a message when the file is not a
/// video libavformat can open. libav's own logging is silenced.
int ss_video_probe_file(const char *path, int want, double budget_s, ss_video_probe *out, double *times,
                        unsigned char *pixels, char message[SS_VIDEO_MSG]);

/// Decodes the frame nearest the middle of the video as RGB, its long side scaled to at most
/// `max_side`. Returns 0 and a malloc'd *rgb (ss_video_free), or -1 with a message.
int ss_video_poster(const char *path, int max_side, unsigned char **rgb, int *width, int *height,
                    char message[SS_VIDEO_MSG]);
void ss_video_free(void *p);
#endif
