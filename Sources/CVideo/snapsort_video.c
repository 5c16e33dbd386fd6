// Video files through FFmpeg (Debian 12: libavformat 59, libavcodec 59, libswscale 6).
// See: https://ffmpeg.org/doxygen/5.1/group__lavf__decoding.html and
// https://ffmpeg.org/doxygen/5.1/group__lavc__decoding.html (send_packet / receive_frame).
#include "snapsort_video.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "snapsort_lazylib.h"

// FFmpeg is opened on first use (see snapsort_lazylib.h): libavformat and libavcodec pull in
// some 120 libraries (every codec, network and font library Debian builds them with), ~20 MB of
// the resident set of every snapsort process — an agent watching a library without videos held
// them for days — and most runs never read a video. libavcodec's and libavutil's functions are
// looked up through libavformat's handle (its dependencies); libswscale has its own. Only the
// major versions these headers describe are opened: the shim reads FFmpeg's structs directly.
#define AVFORMAT_FUNCTIONS(X) \
    X(avformat_open_input) \
    X(avformat_find_stream_info) \
    X(avformat_close_input) \
    X(avformat_seek_file) \
    X(avformat_index_get_entries_count) \
    X(av_find_best_stream) \
    X(av_read_frame) \
    X(av_seek_frame) \
    X(av_stream_get_side_data) \
    X(avcodec_alloc_context3) \
    X(avcodec_free_context) \
    X(avcodec_parameters_to_context) \
    X(avcodec_open2) \
    X(avcodec_get_name) \
    X(avcodec_send_packet) \
    X(avcodec_receive_frame) \
    X(avcodec_flush_buffers) \
    X(av_packet_alloc) \
    X(av_packet_free) \
    X(av_packet_unref) \
    X(av_frame_alloc) \
    X(av_frame_free) \
    X(av_frame_unref) \
    X(av_malloc) \
    X(av_free) \
    X(av_strerror) \
    X(av_log_set_level) \
    X(av_display_rotation_get)
#define SWSCALE_FUNCTIONS(X) \
    X(sws_getContext) \
    X(sws_freeContext) \
    X(sws_scale)
static struct { AVFORMAT_FUNCTIONS(SS_LAZY_FIELD) } libav;
static const char *const libav_functions[] = {AVFORMAT_FUNCTIONS(SS_LAZY_NAME)};
_Static_assert(sizeof libav == sizeof libav_functions, "one pointer per function");
static struct { SWSCALE_FUNCTIONS(SS_LAZY_FIELD) } libsws;
static const char *const libsws_functions[] = {SWSCALE_FUNCTIONS(SS_LAZY_NAME)};
_Static_assert(sizeof libsws == sizeof libsws_functions, "one pointer per function");
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int ffmpeg_loaded = 0;
static char load_error[200];

static void load_ffmpeg(void) {
    static const char *const avformat[] = {"libavformat.so." AV_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR)};
    static const char *const swscale[] = {"libswscale.so." AV_STRINGIFY(LIBSWSCALE_VERSION_MAJOR)};
    if (!ss_lazy_open(avformat, 1, libav_functions, sizeof libav_functions / sizeof *libav_functions, (void **)&libav, load_error,
                      sizeof load_error))
        return;
    if (!ss_lazy_open(swscale, 1, libsws_functions, sizeof libsws_functions / sizeof *libsws_functions, (void **)&libsws,
                      load_error, sizeof load_error))
        return;
    // libav writes its warnings to stderr by default: a damaged file must not write to ours.
    libav.av_log_set_level(AV_LOG_QUIET);
    ffmpeg_loaded = 1;
}

// The calls below go through the tables: each FFmpeg name stands for its table's field.
#define avformat_open_input libav.avformat_open_input
#define avformat_find_stream_info libav.avformat_find_stream_info
#define avformat_close_input libav.avformat_close_input
#define avformat_seek_file libav.avformat_seek_file
#define avformat_index_get_entries_count libav.avformat_index_get_entries_count
#define av_find_best_stream libav.av_find_best_stream
#define av_read_frame libav.av_read_frame
#define av_seek_frame libav.av_seek_frame
#define av_stream_get_side_data libav.av_stream_get_side_data
#define avcodec_alloc_context3 libav.avcodec_alloc_context3
#define avcodec_free_context libav.avcodec_free_context
#define avcodec_parameters_to_context libav.avcodec_parameters_to_context
#define avcodec_open2 libav.avcodec_open2
#define avcodec_get_name libav.avcodec_get_name
#define avcodec_send_packet libav.avcodec_send_packet
#define avcodec_receive_frame libav.avcodec_receive_frame
#define avcodec_flush_buffers libav.avcodec_flush_buffers
#define av_packet_alloc libav.av_packet_alloc
#define av_packet_free libav.av_packet_free
#define av_packet_unref libav.av_packet_unref
#define av_frame_alloc libav.av_frame_alloc
#define av_frame_free libav.av_frame_free
#define av_frame_unref libav.av_frame_unref
#define av_malloc libav.av_malloc
#define av_free libav.av_free
#define av_strerror libav.av_strerror
#define av_display_rotation_get libav.av_display_rotation_get
#define sws_getContext libsws.sws_getContext
#define sws_freeContext libsws.sws_freeContext
#define sws_scale libsws.sws_scale

static double clock_s(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/// The work spent since (`cpu0`, `wall0`): this thread's CPU time (the same file costs the same
/// on a busy machine), or an eighth of the wall time when that is more (a file on a slow disk).
static double spent_s(double cpu0, double wall0) {
    double cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - cpu0, wall = (clock_s(CLOCK_MONOTONIC) - wall0) / 8;
    return cpu > wall ? cpu : wall;
}

static void say(char message[SS_VIDEO_MSG], const char *what, int err) {
    char buf[AV_ERROR_MAX_STRING_SIZE] = {0};
    if (err != 0) av_strerror(err, buf, sizeof buf);
    snprintf(message, SS_VIDEO_MSG, "%s%s%s", what, err != 0 ? ": " : "", buf);
}

/// One open video: its demuxer, its best video stream and (when at hand) a decoder.
typedef struct {
    AVFormatContext *fmt;
    AVCodecContext *dec;
    AVPacket *pkt;
    AVFrame *frame;
    int stream;
    int64_t start;  // the stream's first timestamp (an MPEG-TS starts anywhere), in its time base
    double tb;      // seconds per time-base tick
    double fps;     // frames a second (0 when the stream does not say)
    int decoded;    // frames decoded since the file was opened (the work done)
} video;

static void video_close(video *v) {
    av_frame_free(&v->frame);
    av_packet_free(&v->pkt);
    avcodec_free_context(&v->dec);
    if (v->fmt) avformat_close_input(&v->fmt);
}

/// Opens the file and its video stream; the decoder is opened when one exists (`*decodable`).
static int video_open(video *v, const char *path, int *decodable, char message[SS_VIDEO_MSG]) {
    memset(v, 0, sizeof *v);
    v->stream = -1;
    *decodable = 0;
    int rc = avformat_open_input(&v->fmt, path, NULL, NULL);
    if (rc < 0) {
        say(message, "not a video FFmpeg can open", rc);
        v->fmt = NULL;
        return -1;
    }
    rc = avformat_find_stream_info(v->fmt, NULL);
    if (rc < 0) {
        say(message, "the video's streams cannot be read", rc);
        return -1;
    }
    const AVCodec *codec = NULL;
    int si = av_find_best_stream(v->fmt, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (si < 0 && si != AVERROR_DECODER_NOT_FOUND) return 0;  // no video stream at all
    if (si < 0) {
        // A video stream whose codec has no decoder: find it again without asking for one.
        si = av_find_best_stream(v->fmt, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
        if (si < 0) return 0;
        codec = NULL;
    }
    v->stream = si;
    AVStream *st = v->fmt->streams[si];
    v->tb = av_q2d(st->time_base);
    v->start = st->start_time != AV_NOPTS_VALUE ? st->start_time : 0;
    AVRational rate = st->avg_frame_rate.num > 0 && st->avg_frame_rate.den > 0 ? st->avg_frame_rate : st->r_frame_rate;
    v->fps = rate.num > 0 && rate.den > 0 ? av_q2d(rate) : 0;
    if (v->fps > 240) v->fps = 0;  // a time base taken for a rate (MPEG-TS's 90 kHz): unknown
    if (codec == NULL) return 0;
    v->dec = avcodec_alloc_context3(codec);
    v->pkt = av_packet_alloc();
    v->frame = av_frame_alloc();
    if (!v->dec || !v->pkt || !v->frame) {
        say(message, "out of memory", 0);
        return -1;
    }
    if (avcodec_parameters_to_context(v->dec, st->codecpar) < 0) return 0;
    // One thread: the scan runs one decode per worker already (and the workers are confined).
    v->dec->thread_count = 1;
    // Small pictures are all we keep: the decoder may skip the loop filter and take shortcuts,
    // and decoders that can (Motion-JPEG) decode at 1/2, 1/4 or 1/8 of the size.
    v->dec->skip_loop_filter = AVDISCARD_ALL;
    // Not for MPEG-1/2: their fast path decodes 4:2:2 chroma (an MJPEG camera's clip made a
    // DVD, a pro camcorder's) as flat grey frames with concealment flagged.
    if (codec->id != AV_CODEC_ID_MPEG1VIDEO && codec->id != AV_CODEC_ID_MPEG2VIDEO) v->dec->flags2 |= AV_CODEC_FLAG2_FAST;
    // Reduced no further than the poster needs (a long side of SS_VIDEO_POSTER_SIDE).
    int lowres = 0, cw = st->codecpar->width, ch = st->codecpar->height, longest = cw > ch ? cw : ch, shortest = cw > ch ? ch : cw;
    while (lowres < codec->max_lowres && (longest >> (lowres + 1)) >= SS_VIDEO_POSTER_SIDE && (shortest >> (lowres + 1)) >= 64) lowres++;
    v->dec->lowres = lowres;
    if (avcodec_open2(v->dec, codec, NULL) < 0) {
        avcodec_free_context(&v->dec);
        return 0;
    }
    *decodable = 1;
    return 0;
}

/// Whether the decoder drew `f` from what the file holds: a frame it concealed (missing
/// references after a seek into an open GOP, damaged data) shows a guess, not the video.
static int frame_clean(const AVFrame *f) { return f->decode_error_flags == 0 && !(f->flags & AV_FRAME_FLAG_CORRUPT); }

/// Seeks to the keyframe at or before `target` (stream ticks) and decodes up to it: returns
/// the first clean frame at or past `target`, or NULL when none decodes within `max_frames`
/// frames (the work one sample may cost). `*far` is set, with nothing decoded, when the
/// keyframe the seek lands on lies more than `max_frames` frames before `target` (a long GOP:
/// reaching the time would cost more than the sample is worth). Frames before the target that
/// no other frame refers to (B-frames) are not decoded. The frame is v->frame, valid until
/// the next call; its time is `*at` (stream ticks).
static AVFrame *video_frame_at(video *v, int64_t target, int max_frames, int *far, int64_t *at) {
    *far = 0;
    int64_t aim = target, second = (int64_t)(1.0 / v->tb), back = second;
    int from_bytes = 0;
    // MPEG-PS and MPEG-TS seek by bytes and timestamps, not by an index: a seek may land on the
    // keyframe after the time (seek again, earlier by what was overshot; at the start, from the
    // file's first byte), or past the keyframe before it, where nothing decodes until the next
    // keyframe or the end (seek again, earlier by a second, then two…). A few times.
    for (int attempt = 0; attempt < 4; attempt++) {
        if (from_bytes) {
            if (av_seek_frame(v->fmt, -1, 0, AVSEEK_FLAG_BYTE) < 0) return NULL;
        } else if (av_seek_frame(v->fmt, v->stream, aim, AVSEEK_FLAG_BACKWARD) < 0) {
            if (av_seek_frame(v->fmt, v->stream, aim, AVSEEK_FLAG_BACKWARD | AVSEEK_FLAG_ANY) < 0) return NULL;
        }
        avcodec_flush_buffers(v->dec);
        v->dec->skip_frame = AVDISCARD_NONREF;
        int decoded = 0, packets = 0, mine = 0, draining = 0, overshot = 0, landed_on_key = 0;
        // The last frame's time: a frame the decoder gives without one (the parser's last,
        // flushed at the end) follows it; with none before it, its time is unknown.
        int64_t last = AV_NOPTS_VALUE;
        while (!draining && !overshot) {
            int rc = av_read_frame(v->fmt, v->pkt);
            if (rc < 0) {
                draining = 1;
                avcodec_send_packet(v->dec, NULL);
            } else {
                // A stream of packets of other streams alone (a damaged file) ends somewhere.
                if (++packets > 20000) {
                    av_packet_unref(v->pkt);
                    return NULL;
                }
                if (v->pkt->stream_index != v->stream) {
                    av_packet_unref(v->pkt);
                    continue;
                }
                int64_t ts = v->pkt->pts != AV_NOPTS_VALUE ? v->pkt->pts : v->pkt->dts;
                if (mine == 0) landed_on_key = (v->pkt->flags & AV_PKT_FLAG_KEY) != 0;
                if (mine++ == 0 && (v->pkt->flags & AV_PKT_FLAG_KEY) && ts != AV_NOPTS_VALUE && v->fps > 0 &&
                    (double)(target - ts) * v->tb > max_frames / v->fps) {
                    av_packet_unref(v->pkt);
                    *far = 1;
                    return NULL;
                }
                // Near the target every frame is decoded: the one at the time may be a B-frame.
                if (ts != AV_NOPTS_VALUE && v->fps > 0 && (double)(target - ts) * v->tb < 4 / v->fps) v->dec->skip_frame = AVDISCARD_DEFAULT;
                rc = avcodec_send_packet(v->dec, v->pkt);
                av_packet_unref(v->pkt);
                if (rc < 0 && rc != AVERROR(EAGAIN)) continue;  // a damaged packet: the next one
            }
            while (avcodec_receive_frame(v->dec, v->frame) == 0) {
                decoded++;
                v->decoded++;
                int64_t pts = v->frame->best_effort_timestamp;
                if (pts == AV_NOPTS_VALUE && last != AV_NOPTS_VALUE && v->fps > 0) pts = last + (int64_t)(1.0 / (v->fps * v->tb) + 0.5);
                if (pts != AV_NOPTS_VALUE) last = pts;
                // The first frame already past the time by more than a frame: the seek overshot.
                if (decoded == 1 && pts != AV_NOPTS_VALUE && !from_bytes && v->fps > 0 && (double)(pts - target) * v->tb > 1.5 / v->fps &&
                    attempt < 3) {
                    if (aim > v->start) {
                        int64_t over = pts - target;
                        aim -= over > second ? over : second;
                        if (aim < v->start) aim = v->start;
                    } else {
                        from_bytes = 1;  // a seek to the stream's start time lands past it
                    }
                    av_frame_unref(v->frame);
                    overshot = 1;
                    break;
                }
                if (frame_clean(v->frame) && pts != AV_NOPTS_VALUE && pts >= target) {
                    *at = pts;
                    return v->frame;
                }
                av_frame_unref(v->frame);
                if (decoded >= max_frames) return NULL;
            }
            if (decoded >= max_frames) return NULL;
        }
        if (overshot) continue;
        // The end came with nothing at the time, and the seek landed between keyframes: past the
        // keyframe before the time.
        if (attempt == 3 || landed_on_key || aim <= v->start || from_bytes) return NULL;
        aim -= back;
        back *= 2;
        if (aim < v->start) aim = v->start;
    }
    return NULL;
}

/// Decodes the stream's first clean frame (a poster where seeking finds nothing).
static AVFrame *video_first_frame(video *v, int max_frames) {
    if (av_seek_frame(v->fmt, v->stream, v->start, AVSEEK_FLAG_BACKWARD) < 0 &&
        avformat_seek_file(v->fmt, -1, INT64_MIN, 0, 0, 0) < 0)
        return NULL;
    avcodec_flush_buffers(v->dec);
    v->dec->skip_frame = AVDISCARD_DEFAULT;
    int decoded = 0, packets = 0, draining = 0;
    while (!draining && decoded < max_frames && packets < 20000) {
        if (av_read_frame(v->fmt, v->pkt) < 0) {
            draining = 1;
            avcodec_send_packet(v->dec, NULL);
        } else {
            packets++;
            int ok = v->pkt->stream_index == v->stream;
            if (ok) avcodec_send_packet(v->dec, v->pkt);
            av_packet_unref(v->pkt);
            if (!ok) continue;
        }
        while (avcodec_receive_frame(v->dec, v->frame) == 0) {
            decoded++;
            v->decoded++;
            if (frame_clean(v->frame)) return v->frame;
            av_frame_unref(v->frame);
        }
    }
    return NULL;
}

static double video_duration(video *v) {
    if (v->fmt->duration > 0 && v->fmt->duration != AV_NOPTS_VALUE) return (double)v->fmt->duration / AV_TIME_BASE;
    if (v->stream >= 0) {
        AVStream *st = v->fmt->streams[v->stream];
        if (st->duration > 0 && st->duration != AV_NOPTS_VALUE) return (double)st->duration * v->tb;
    }
    return -1;
}

/// Scales `f` to `w`×`h` pixels of `fmt` into `dst` (`stride` bytes a row). libswscale's SIMD
/// paths may write past a row's end: it scales into a padded buffer of its own, copied out.
static int scale_to(const AVFrame *f, int w, int h, enum AVPixelFormat fmt, unsigned char *dst, int stride) {
    struct SwsContext *s = sws_getContext(f->width, f->height, (enum AVPixelFormat)f->format, w, h, fmt, SWS_AREA, NULL, NULL, NULL);
    if (!s) return -1;
    int row = FFALIGN(stride, 64) + 64;
    uint8_t *tmp = av_malloc((size_t)row * (h + 2));
    if (!tmp) {
        sws_freeContext(s);
        return -1;
    }
    uint8_t *planes[4] = {tmp, NULL, NULL, NULL};
    int strides[4] = {row, 0, 0, 0};
    int rc = sws_scale(s, (const uint8_t *const *)f->data, f->linesize, 0, f->height, planes, strides);
    sws_freeContext(s);
    if (rc > 0)
        for (int y = 0; y < h; y++) memcpy(dst + (size_t)y * stride, tmp + (size_t)y * row, (size_t)stride);
    av_free(tmp);
    return rc > 0 ? 0 : -1;
}

/// What one probe gathers: the samples in time slots, and the poster.
typedef struct {
    int want;
    double duration;
    double *times;          // per slot: the frame's time, or < 0 while the slot is empty
    unsigned char *pixels;  // per slot: SS_VIDEO_SIDE² grey
    int poster_side;        // 0: no poster
    int rotation;           // clockwise degrees the picture is turned for display
    unsigned char *poster;  // malloc'd RGB, upright
    int poster_w, poster_h;
    double poster_distance;  // of the poster's frame from the middle, seconds
} samples;

/// The slot's target time: the middle of the slot's share of the length.
static double slot_time(const samples *s, int i) { return s->duration * (i + 0.5) / s->want; }

/// Turns an RGB picture `w`×`h` clockwise by `deg` (90, 180, 270) into a new buffer.
static unsigned char *rotated(const unsigned char *src, int w, int h, int deg, int *ow, int *oh) {
    int rw = deg == 180 ? w : h, rh = deg == 180 ? h : w;
    unsigned char *out = malloc((size_t)rw * rh * 3);
    if (!out) return NULL;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int dx, dy;
            if (deg == 90) dx = h - 1 - y, dy = x;
            else if (deg == 180) dx = w - 1 - x, dy = h - 1 - y;
            else dx = y, dy = w - 1 - x;
            memcpy(out + ((size_t)dy * rw + dx) * 3, src + ((size_t)y * w + x) * 3, 3);
        }
    *ow = rw;
    *oh = rh;
    return out;
}

/// Makes `f` the poster when it is nearer the middle than the one held: RGB, the pixels' aspect
/// applied, the long side at most `poster_side`, turned upright by the display rotation.
static void consider_poster(samples *s, const AVFrame *f, double at) {
    double distance = at - s->duration / 2;
    if (distance < 0) distance = -distance;
    if (s->poster_side <= 0 || distance >= s->poster_distance) return;
    double sar = f->sample_aspect_ratio.num > 0 && f->sample_aspect_ratio.den > 0 ? av_q2d(f->sample_aspect_ratio) : 1.0;
    double fw = f->width * sar, fh = f->height;
    double k = fw > fh ? s->poster_side / fw : s->poster_side / fh;
    if (k > 1) k = 1;
    int w = (int)(fw * k + 0.5), h = (int)(fh * k + 0.5);
    if (w < 1) w = 1;
    if (h < 1) h = 1;
    unsigned char *buf = malloc((size_t)w * h * 3);
    if (!buf || scale_to(f, w, h, AV_PIX_FMT_RGB24, buf, w * 3) != 0) {
        free(buf);
        return;
    }
    if (s->rotation == 90 || s->rotation == 180 || s->rotation == 270) {
        unsigned char *r = rotated(buf, w, h, s->rotation, &w, &h);
        free(buf);
        if (!r) return;
        buf = r;
    }
    free(s->poster);
    s->poster = buf;
    s->poster_w = w;
    s->poster_h = h;
    s->poster_distance = distance;
}

/// Keeps `f`, at `at` seconds, as slot `i`'s sample.
static int keep(samples *s, int i, const AVFrame *f, double at) {
    if (f->width <= 0 || f->height <= 0) return -1;
    if (scale_to(f, SS_VIDEO_SIDE, SS_VIDEO_SIDE, AV_PIX_FMT_GRAY8, s->pixels + (size_t)i * SS_VIDEO_SIDE * SS_VIDEO_SIDE, SS_VIDEO_SIDE) != 0)
        return -1;
    s->times[i] = at;
    consider_poster(s, f, at);
    return 0;
}

static int filled(const samples *s) {
    int n = 0;
    for (int i = 0; i < s->want; i++) n += s->times[i] >= 0;
    return n;
}

/// Fills the empty slots by decoding the stream in order from its start, for what seeking
/// cannot serve (an MPEG-TS with one keyframe: a seek lands between keyframes and nothing
/// decodes after it; a GOP longer than the slots are apart). Each clean frame at or past an
/// empty slot's time is that slot's sample. Stops past `budget_s` (see `spent_s`).
static void sample_in_order(video *v, samples *s, double budget_s, double cpu0, double wall0, int *budget_hit) {
    if (av_seek_frame(v->fmt, v->stream, v->start, AVSEEK_FLAG_BACKWARD) < 0 &&
        avformat_seek_file(v->fmt, -1, INT64_MIN, 0, 0, 0) < 0)
        return;
    avcodec_flush_buffers(v->dec);
    v->dec->skip_frame = AVDISCARD_DEFAULT;
    int next = 0, draining = 0;
    while (next < s->want && !draining) {
        if (spent_s(cpu0, wall0) > budget_s) {
            *budget_hit = 1;
            break;
        }
        int rc = av_read_frame(v->fmt, v->pkt);
        if (rc < 0) {
            draining = 1;
            avcodec_send_packet(v->dec, NULL);
        } else {
            int mine = v->pkt->stream_index == v->stream;
            if (mine) avcodec_send_packet(v->dec, v->pkt);
            av_packet_unref(v->pkt);
            if (!mine) continue;
        }
        while (next < s->want && avcodec_receive_frame(v->dec, v->frame) == 0) {
            v->decoded++;
            int64_t pts = v->frame->best_effort_timestamp;
            double t = pts != AV_NOPTS_VALUE ? (double)(pts - v->start) * v->tb : -1;
            while (next < s->want && (s->times[next] >= 0 || t >= slot_time(s, next) + 1.0)) next++;  // filled, or passed
            if (next < s->want && t >= slot_time(s, next) && frame_clean(v->frame) && keep(s, next, v->frame, t) == 0) next++;
            av_frame_unref(v->frame);
        }
    }
}

/// The order the slots are sampled in: the middle first, then halves, quarters, eighths…
/// (the bit-reversed counting, shifted by half a turn), so that the samples taken before the
/// budget runs out are spread evenly over the whole length, and two copies sampled to
/// different depths still share their times.
static int slot_order(int want, int *order) {
    int bits = 0;
    while ((1 << bits) < want) bits++;
    int p = 1 << bits, n = 0;
    for (int k = 0; k < p; k++) {
        int r = 0;
        for (int b = 0; b < bits; b++)
            if (k & (1 << b)) r |= 1 << (bits - 1 - b);
        int i = (r + p / 2) % p;
        if (i < want) order[n++] = i;
    }
    return n;
}

int ss_video_probe_file(const char *path, int want, double budget_s, int poster_side, ss_video_probe *out, double *times,
                        unsigned char *pixels, unsigned char **poster, char message[SS_VIDEO_MSG]) {
    memset(out, 0, sizeof *out);
    out->duration = -1;
    message[0] = 0;
    *poster = NULL;
    pthread_once(&load_once, load_ffmpeg);
    if (!ffmpeg_loaded) {
        snprintf(message, SS_VIDEO_MSG, "%s", load_error);
        return -2;
    }
    video v;
    int decodable = 0;
    if (video_open(&v, path, &decodable, message) != 0) {
        video_close(&v);
        return -1;
    }
    snprintf(out->container, sizeof out->container, "%s", v.fmt->iformat && v.fmt->iformat->name ? v.fmt->iformat->name : "");
    out->duration = video_duration(&v);
    if (v.stream < 0) {
        video_close(&v);
        return 0;
    }
    AVStream *st = v.fmt->streams[v.stream];
    out->has_video = 1;
    out->decodable = decodable;
    out->width = st->codecpar->width;
    out->height = st->codecpar->height;
    const char *name = avcodec_get_name(st->codecpar->codec_id);
    snprintf(out->codec, sizeof out->codec, "%s", name ? name : "");
    const uint8_t *matrix = av_stream_get_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, NULL);
    if (matrix) {
        double r = -av_display_rotation_get((const int32_t *)matrix);
        if (r == r) {  // not NaN (a matrix that is no rotation)
            int deg = ((int)(r < 0 ? r - 0.5 : r + 0.5) % 360 + 360) % 360;
            out->rotation = (deg + 45) / 90 * 90 % 360;
        }
    }
    if (!decodable || out->duration <= 0) {
        video_close(&v);
        return 0;
    }
    if (want > SS_VIDEO_MAX_FRAMES) want = SS_VIDEO_MAX_FRAMES;
    if (want < 0) want = 0;
    samples s = {want, out->duration, times, pixels, poster_side, out->rotation, NULL, 0, 0, 1e300};
    for (int i = 0; i < want; i++) times[i] = -1;
    double cpu0 = clock_s(CLOCK_THREAD_CPUTIME_ID), wall0 = clock_s(CLOCK_MONOTONIC);
    // A frame a slot, each from the keyframe before its time, in the order that keeps the
    // samples spread whenever the budget stops them. Reaching a time costs the frames between
    // its keyframe and it: past `near` frames (a long GOP; x264's default is 250) the slot waits
    // for the second round, which reaches it only while the budget lasts and at most `far`
    // frames deep; a slot deeper than that stays empty.
    const int near = 48, far = 300;
    int order[SS_VIDEO_MAX_FRAMES], slots = slot_order(want, order), seeks_failed = 0;
    // A stream without an index (MPEG-TS, MPEG-PS) is searched by reading at every seek, and an
    // MPEG-TS seek lands between keyframes: one short enough to decode whole (no more frames than
    // the deep slots could cost) is decoded in order at once.
    if (avformat_index_get_entries_count(st) == 0 && v.fps > 0 && out->duration * v.fps <= (double)want * far) slots = 0;
    int deep[SS_VIDEO_MAX_FRAMES], ndeep = 0;
    for (int k = 0; k < slots; k++) {
        if (spent_s(cpu0, wall0) > budget_s) {
            out->budget_hit = 1;
            break;
        }
        // Seeks that decode nothing clean, two at first or half of them later: seeking does not
        // serve this file (an MPEG-TS lands between keyframes: only concealed frames follow).
        if ((k >= 2 && filled(&s) == 0 && ndeep == 0) || (k >= 4 && seeks_failed * 2 >= k)) break;
        int i = order[k], is_far = 0;
        double t = slot_time(&s, i);
        int64_t pts = AV_NOPTS_VALUE;
        AVFrame *f = video_frame_at(&v, v.start + (int64_t)(t / v.tb), near, &is_far, &pts);
        if (is_far) {
            deep[ndeep++] = i;
            continue;
        }
        if (!f) {
            seeks_failed++;
            continue;
        }
        double at = (double)(pts - v.start) * v.tb;
        // A seek that landed elsewhere (MPEG-TS and MPEG-PS seek by bytes and timestamps, not
        // by an index): the frame does not stand for this time.
        double slack = out->duration / want;
        if (slack < 1.0) slack = 1.0;
        if (at > t + slack || at < t - slack) continue;
        keep(&s, i, f, at);
    }
    // Seeking served under half the slots: a GOP longer than the slots are apart (seeks would
    // decode the same GOP again and again) or a stream seeking does not serve. Decoding in order
    // costs each frame once: that, unless the deep slots cost fewer frames (a long film).
    int in_order = filled(&s) < want / 2 && (v.fps <= 0 || slots == 0 || seeks_failed > ndeep || out->duration * v.fps <= (double)ndeep * far);
    if (in_order && spent_s(cpu0, wall0) < budget_s) {
        sample_in_order(&v, &s, budget_s, cpu0, wall0, &out->budget_hit);
    } else {
        for (int k = 0; k < ndeep; k++) {
            if (spent_s(cpu0, wall0) > budget_s) {
                out->budget_hit = 1;
                break;
            }
            int i = deep[k], is_far = 0;
            double t = slot_time(&s, i);
            int64_t pts = AV_NOPTS_VALUE;
            AVFrame *f = video_frame_at(&v, v.start + (int64_t)(t / v.tb), far, &is_far, &pts);
            if (!f) continue;
            double at = (double)(pts - v.start) * v.tb;
            if (at > t + 1.0) continue;
            keep(&s, i, f, at);
        }
    }
    // A poster even where no sample was taken (the budget, a file seeking does not serve).
    if (poster_side > 0 && !s.poster) {
        AVFrame *f = video_first_frame(&v, 300);
        if (f) consider_poster(&s, f, 0);
    }
    // The slots in time order, the empty ones dropped; a frame twice (two slots reached the
    // same frame) tells nothing new.
    int n = 0;
    for (int i = 0; i < want; i++) {
        if (times[i] < 0 || (n > 0 && times[i] <= times[n - 1])) continue;
        if (n != i) {
            times[n] = times[i];
            memmove(pixels + (size_t)n * SS_VIDEO_SIDE * SS_VIDEO_SIDE, pixels + (size_t)i * SS_VIDEO_SIDE * SS_VIDEO_SIDE,
                    SS_VIDEO_SIDE * SS_VIDEO_SIDE);
        }
        n++;
    }
    out->frames = n;
    out->decoded = v.decoded;
    *poster = s.poster;
    out->poster_width = s.poster_w;
    out->poster_height = s.poster_h;
    video_close(&v);
    return 0;
}

void ss_video_free(void *p) { free(p); }
