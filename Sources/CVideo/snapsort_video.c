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

static pthread_once_t quiet_once = PTHREAD_ONCE_INIT;
// libav writes its warnings to stderr by default: a damaged file must not write to ours.
static void quiet(void) { av_log_set_level(AV_LOG_QUIET); }

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
} video;

static void video_close(video *v) {
    av_frame_free(&v->frame);
    av_packet_free(&v->pkt);
    avcodec_free_context(&v->dec);
    if (v->fmt) avformat_close_input(&v->fmt);
}

/// Opens the file and its video stream; the decoder is opened when one exists (`*decodable`).
static int video_open(video *v, const char *path, int *decodable, char message[SS_VIDEO_MSG]) {
    pthread_once(&quiet_once, quiet);
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
    v->dec->flags2 |= AV_CODEC_FLAG2_FAST;
    int lowres = 0;
    while (lowres < codec->max_lowres && (st->codecpar->width >> (lowres + 1)) >= 96 && (st->codecpar->height >> (lowres + 1)) >= 64)
        lowres++;
    v->dec->lowres = lowres;
    if (avcodec_open2(v->dec, codec, NULL) < 0) {
        avcodec_free_context(&v->dec);
        return 0;
    }
    *decodable = 1;
    return 0;
}

/// Seeks to the keyframe at or before `target` (stream ticks) and decodes up to it: returns
/// the first frame at or past `target`, the keyframe itself when `keyonly`, or the last frame
/// decoded when the stream ends or `max_frames` were decoded first; NULL when none decodes.
/// `from_start`: decode from the stream's start instead (where a seek finds no keyframe).
/// The frame is v->frame, valid until the next call.
static AVFrame *video_frame_at(video *v, int64_t target, int keyonly, int max_frames, int from_start) {
    int64_t to = from_start ? v->start : target;
    if (av_seek_frame(v->fmt, v->stream, to, AVSEEK_FLAG_BACKWARD) < 0) {
        if (av_seek_frame(v->fmt, v->stream, to, AVSEEK_FLAG_BACKWARD | AVSEEK_FLAG_ANY) < 0) return NULL;
    }
    avcodec_flush_buffers(v->dec);
    v->dec->skip_frame = keyonly ? AVDISCARD_NONKEY : AVDISCARD_DEFAULT;
    int decoded = 0, have = 0, packets = 0, draining = 0;
    while (!draining) {
        int rc = av_read_frame(v->fmt, v->pkt);
        if (rc < 0) {
            draining = 1;
            avcodec_send_packet(v->dec, NULL);
        } else {
            if (v->pkt->stream_index != v->stream || (keyonly && !(v->pkt->flags & AV_PKT_FLAG_KEY))) {
                av_packet_unref(v->pkt);
                // A stream of packets of other streams alone (a damaged file) ends somewhere.
                if (++packets > 20000) return have ? v->frame : NULL;
                continue;
            }
            if (++packets > 20000) return have ? v->frame : NULL;
            rc = avcodec_send_packet(v->dec, v->pkt);
            av_packet_unref(v->pkt);
            if (rc < 0 && rc != AVERROR(EAGAIN)) continue;  // a damaged packet: the next one
        }
        for (;;) {
            AVFrame *f = av_frame_alloc();
            if (!f) return NULL;
            rc = avcodec_receive_frame(v->dec, f);
            if (rc < 0) {
                av_frame_free(&f);
                break;
            }
            av_frame_unref(v->frame);
            av_frame_move_ref(v->frame, f);
            av_frame_free(&f);
            have = 1;
            decoded++;
            int64_t pts = v->frame->best_effort_timestamp;
            if (keyonly || decoded >= max_frames || (pts != AV_NOPTS_VALUE && pts >= target)) return v->frame;
        }
    }
    return have ? v->frame : NULL;
}

static double video_duration(video *v) {
    if (v->fmt->duration > 0 && v->fmt->duration != AV_NOPTS_VALUE) return (double)v->fmt->duration / AV_TIME_BASE;
    if (v->stream >= 0) {
        AVStream *st = v->fmt->streams[v->stream];
        if (st->duration > 0 && st->duration != AV_NOPTS_VALUE) return (double)st->duration * v->tb;
    }
    return -1;
}

/// Scales `f` to `w`×`h` pixels of `fmt` into `dst` (`stride` bytes a row).
static int scale_to(const AVFrame *f, int w, int h, enum AVPixelFormat fmt, unsigned char *dst, int stride) {
    struct SwsContext *s = sws_getContext(f->width, f->height, (enum AVPixelFormat)f->format, w, h, fmt, SWS_AREA, NULL, NULL, NULL);
    if (!s) return -1;
    uint8_t *planes[4] = {dst, NULL, NULL, NULL};
    int strides[4] = {stride, 0, 0, 0};
    int rc = sws_scale(s, (const uint8_t *const *)f->data, f->linesize, 0, f->height, planes, strides);
    sws_freeContext(s);
    return rc > 0 ? 0 : -1;
}

/// Samples by decoding the stream in order from its start, for what seeking cannot serve (an
/// MPEG-TS with one keyframe: a seek lands between keyframes and nothing decodes after it).
/// Each frame at or past a sample's time is that sample; the budget as in ss_video_probe_file.
static int sample_in_order(video *v, double duration, int want, double budget_s, double cpu0, double wall0, double *times,
                           unsigned char *pixels, int *budget_hit) {
    if (av_seek_frame(v->fmt, v->stream, v->start, AVSEEK_FLAG_BACKWARD) < 0 &&
        avformat_seek_file(v->fmt, -1, INT64_MIN, 0, 0, 0) < 0)
        return 0;
    avcodec_flush_buffers(v->dec);
    v->dec->skip_frame = AVDISCARD_DEFAULT;
    int n = 0, keyonly = 0, draining = 0;
    while (n < want && !draining) {
        double spent = spent_s(cpu0, wall0);
        if (spent > 2 * budget_s) {
            *budget_hit = 1;
            break;
        }
        if (spent > budget_s && !keyonly) {
            *budget_hit = 1;
            keyonly = 1;
            v->dec->skip_frame = AVDISCARD_NONKEY;
        }
        int rc = av_read_frame(v->fmt, v->pkt);
        if (rc < 0) {
            draining = 1;
            avcodec_send_packet(v->dec, NULL);
        } else {
            int mine = v->pkt->stream_index == v->stream && (!keyonly || (v->pkt->flags & AV_PKT_FLAG_KEY));
            if (mine) avcodec_send_packet(v->dec, v->pkt);
            av_packet_unref(v->pkt);
            if (!mine) continue;
        }
        while (n < want && avcodec_receive_frame(v->dec, v->frame) == 0) {
            int64_t pts = v->frame->best_effort_timestamp;
            double t = pts != AV_NOPTS_VALUE ? (double)(pts - v->start) * v->tb : -1;
            double target = duration * (n + 0.5) / want;
            if (t >= target && v->frame->width > 0 && v->frame->height > 0 &&
                scale_to(v->frame, SS_VIDEO_SIDE, SS_VIDEO_SIDE, AV_PIX_FMT_GRAY8, pixels + (size_t)n * SS_VIDEO_SIDE * SS_VIDEO_SIDE,
                         SS_VIDEO_SIDE) == 0) {
                times[n] = t;
                n++;
                // A frame past several samples' times (keyframes alone) stands for the first only.
                while (n < want && t >= duration * (n + 0.5) / want + 1.0) {
                    times[n] = -1;
                    n++;
                }
            }
            av_frame_unref(v->frame);
        }
    }
    // Drop the samples no frame stood for.
    int kept = 0;
    for (int i = 0; i < n; i++) {
        if (times[i] < 0) continue;
        if (kept != i) {
            times[kept] = times[i];
            memmove(pixels + (size_t)kept * SS_VIDEO_SIDE * SS_VIDEO_SIDE, pixels + (size_t)i * SS_VIDEO_SIDE * SS_VIDEO_SIDE,
                    SS_VIDEO_SIDE * SS_VIDEO_SIDE);
        }
        kept++;
    }
    return kept;
}

int ss_video_probe_file(const char *path, int want, double budget_s, ss_video_probe *out, double *times,
                        unsigned char *pixels, char message[SS_VIDEO_MSG]) {
    memset(out, 0, sizeof *out);
    out->duration = -1;
    message[0] = 0;
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
        int deg = ((int)(r < 0 ? r - 0.5 : r + 0.5) % 360 + 360) % 360;
        out->rotation = (deg + 45) / 90 * 90 % 360;
    }
    if (!decodable || out->duration <= 0) {
        video_close(&v);
        return 0;
    }
    if (want > SS_VIDEO_MAX_FRAMES) want = SS_VIDEO_MAX_FRAMES;
    if (want < 0) want = 0;
    double cpu0 = clock_s(CLOCK_THREAD_CPUTIME_ID), wall0 = clock_s(CLOCK_MONOTONIC);
    // A frame a sample at most: a long GOP (x264's 250 frames) is decoded up to the sample's
    // time, bounded.
    const int max_forward = 300;
    for (int i = 0; i < want; i++) {
        double spent = spent_s(cpu0, wall0);
        if (spent > 2 * budget_s) {
            out->budget_hit = 1;
            break;
        }
        int keyonly = spent > budget_s;
        if (keyonly) out->budget_hit = 1;
        double t = out->duration * (i + 0.5) / want;
        int64_t target = v.start + (int64_t)(t / v.tb);
        // Two seeks that decode nothing: seeking does not serve this file (see below).
        if (i >= 2 && out->frames == 0) break;
        AVFrame *f = video_frame_at(&v, target, keyonly, max_forward, 0);
        if (!f || f->width <= 0 || f->height <= 0) continue;
        int n = out->frames;
        if (scale_to(f, SS_VIDEO_SIDE, SS_VIDEO_SIDE, AV_PIX_FMT_GRAY8, pixels + (size_t)n * SS_VIDEO_SIDE * SS_VIDEO_SIDE, SS_VIDEO_SIDE) != 0)
            continue;
        int64_t pts = f->best_effort_timestamp;
        double at = pts != AV_NOPTS_VALUE ? (double)(pts - v.start) * v.tb : t;
        // A seek that landed elsewhere (MPEG-TS and MPEG-PS seek by bytes and timestamps, not
        // by an index): the frame does not stand for this time.
        double slack = out->duration / want;
        if (slack < 1.0) slack = 1.0;
        // Keyframes alone (past the budget): the keyframe before the time, at its own time.
        if (at > t + slack || (!keyonly && at < t - slack)) continue;
        if (n > 0 && at <= times[n - 1]) continue;  // the same frame again tells nothing new
        times[n] = at;
        out->frames = n + 1;
    }
    // Seeking served under half the samples (an MPEG-TS or a stream without an index):
    // decode in order instead, within what is left of the budget.
    if (out->frames < want / 2 && spent_s(cpu0, wall0) < 2 * budget_s) {
        out->frames = sample_in_order(&v, out->duration, want, budget_s, cpu0, wall0, times, pixels, &out->budget_hit);
    }
    video_close(&v);
    return 0;
}

int ss_video_poster(const char *path, int max_side, unsigned char **rgb, int *width, int *height, char message[SS_VIDEO_MSG]) {
    *rgb = NULL;
    message[0] = 0;
    video v;
    int decodable = 0;
    if (video_open(&v, path, &decodable, message) != 0) {
        video_close(&v);
        return -1;
    }
    double d = video_duration(&v);
    if (v.stream < 0 || !decodable) {
        say(message, v.stream < 0 ? "the file holds no video stream" : "no decoder for the video's codec", 0);
        video_close(&v);
        return -1;
    }
    int64_t target = v.start + (int64_t)((d > 0 ? d / 2 : 0) / v.tb);
    AVFrame *f = video_frame_at(&v, target, 0, 300, 0);
    if (!f) f = video_frame_at(&v, target, 0, 3000, 1);
    if (!f || f->width <= 0 || f->height <= 0) {
        say(message, "no frame of the video decodes", 0);
        video_close(&v);
        return -1;
    }
    // The picture's shape: the frame as decoded, its pixels' aspect applied.
    double sar = f->sample_aspect_ratio.num > 0 && f->sample_aspect_ratio.den > 0 ? av_q2d(f->sample_aspect_ratio) : 1.0;
    double fw = f->width * sar, fh = f->height;
    double k = fw > fh ? max_side / fw : max_side / fh;
    if (k > 1) k = 1;
    int w = (int)(fw * k + 0.5), h = (int)(fh * k + 0.5);
    if (w < 1) w = 1;
    if (h < 1) h = 1;
    unsigned char *buf = malloc((size_t)w * h * 3);
    if (!buf || scale_to(f, w, h, AV_PIX_FMT_RGB24, buf, w * 3) != 0) {
        free(buf);
        say(message, "the frame cannot be scaled", 0);
        video_close(&v);
        return -1;
    }
    video_close(&v);
    *rgb = buf;
    *width = w;
    *height = h;
    return 0;
}

void ss_video_free(void *p) { free(p); }
