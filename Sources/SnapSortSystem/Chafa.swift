import CChafa
import Glibc

/// Renders pictures as terminal graphics through libchafa: kitty, iTerm2 or sixel images when
/// the terminal speaks them (detected from the environment, so it works over ssh), else
/// Unicode symbols in the richest colour mode the terminal has.
public enum Chafa {
    /// The graphics mode chosen for this terminal.
    public enum Mode: String, Sendable { case kitty, iterm2, sixels, symbols }

    /// The best mode for the terminal described by `environment` (e.g. TERM, COLORTERM,
    /// KITTY_WINDOW_ID, TERM_PROGRAM).
    public static func detectMode(environment: [String: String]) -> Mode {
        withTermInfo(environment) { info in mode(info) }
    }

    private static func mode(_ info: OpaquePointer) -> Mode {
        if chafa_term_info_have_seq(info, CHAFA_TERM_SEQ_BEGIN_KITTY_IMMEDIATE_IMAGE_V1) != 0 { return .kitty }
        if chafa_term_info_have_seq(info, CHAFA_TERM_SEQ_BEGIN_ITERM2_IMAGE) != 0 { return .iterm2 }
        if chafa_term_info_have_seq(info, CHAFA_TERM_SEQ_BEGIN_SIXELS) != 0 { return .sixels }
        return .symbols
    }

    private static func withTermInfo<T>(_ environment: [String: String], _ body: (OpaquePointer) -> T) -> T {
        let strings = environment.map { strdup("\($0.key)=\($0.value)") }
        var envp: [UnsafeMutablePointer<CChar>?] = strings + [nil]
        defer { strings.forEach { free($0) } }
        let info = envp.withUnsafeMutableBufferPointer { chafa_term_db_detect(chafa_term_db_get_default(), $0.baseAddress)! }
        defer { chafa_term_info_unref(info) }
        return body(info)
    }

    /// Renders an RGB or RGBA bitmap into at most `columns`×`rows` terminal cells, keeping its
    /// aspect ratio. Returns the text to write to the terminal. `asciiOnly` draws symbols with
    /// ASCII characters only, for a terminal whose locale is not UTF-8.
    public static func render(
        _ bitmap: Bitmap, columns: Int, rows: Int, environment: [String: String],
        cellPixels: (width: Int, height: Int)? = nil, mode forced: Mode? = nil,
        asciiOnly: Bool = false
    ) -> String {
        guard bitmap.width > 0, bitmap.height > 0, bitmap.channels == 3 || bitmap.channels == 4 else { return "" }
        return withTermInfo(environment) { info in
            let mode = forced ?? self.mode(info)
            var w = gint(max(1, columns)), h = gint(max(1, rows))
            let fontRatio: gfloat = cellPixels.map { gfloat($0.width) / gfloat(max(1, $0.height)) } ?? 0.5
            chafa_calc_canvas_geometry(gint(bitmap.width), gint(bitmap.height), &w, &h, fontRatio, 1, 0)
            let config = chafa_canvas_config_new()!
            defer { chafa_canvas_config_unref(config) }
            chafa_canvas_config_set_geometry(config, w, h)
            if let c = cellPixels, c.width > 0, c.height > 0 {
                chafa_canvas_config_set_cell_geometry(config, gint(c.width), gint(c.height))
            }
            switch mode {
            case .kitty: chafa_canvas_config_set_pixel_mode(config, CHAFA_PIXEL_MODE_KITTY)
            case .iterm2: chafa_canvas_config_set_pixel_mode(config, CHAFA_PIXEL_MODE_ITERM2)
            case .sixels: chafa_canvas_config_set_pixel_mode(config, CHAFA_PIXEL_MODE_SIXELS)
            case .symbols: chafa_canvas_config_set_pixel_mode(config, CHAFA_PIXEL_MODE_SYMBOLS)
            }
            if chafa_term_info_have_seq(info, CHAFA_TERM_SEQ_SET_COLOR_FGBG_DIRECT) != 0 {
                chafa_canvas_config_set_canvas_mode(config, CHAFA_CANVAS_MODE_TRUECOLOR)
            } else if chafa_term_info_have_seq(info, CHAFA_TERM_SEQ_SET_COLOR_FGBG_256) != 0 {
                chafa_canvas_config_set_canvas_mode(config, CHAFA_CANVAS_MODE_INDEXED_240)
            } else {
                chafa_canvas_config_set_canvas_mode(config, CHAFA_CANVAS_MODE_INDEXED_16)
            }
            let symbols = chafa_symbol_map_new()!
            defer { chafa_symbol_map_unref(symbols) }
            if asciiOnly {
                chafa_symbol_map_add_by_tags(symbols, CHAFA_SYMBOL_TAG_ASCII)
            } else {
                chafa_symbol_map_add_by_tags(symbols, CHAFA_SYMBOL_TAG_BLOCK)
                chafa_symbol_map_add_by_tags(symbols, CHAFA_SYMBOL_TAG_BORDER)
                chafa_symbol_map_add_by_tags(symbols, CHAFA_SYMBOL_TAG_SPACE)
            }
            chafa_canvas_config_set_symbol_map(config, symbols)
            let canvas = chafa_canvas_new(config)!
            defer { chafa_canvas_unref(canvas) }
            let type = bitmap.channels == 4 ? CHAFA_PIXEL_RGBA8_UNASSOCIATED : CHAFA_PIXEL_RGB8
            bitmap.pixels.withUnsafeBufferPointer {
                chafa_canvas_draw_all_pixels(
                    canvas, type, $0.baseAddress, gint(bitmap.width), gint(bitmap.height),
                    gint(bitmap.width * bitmap.channels))
            }
            guard let gs = chafa_canvas_print(canvas, info) else { return "" }
            let text = String(cString: gs.pointee.str)
            g_string_free(gs, 1)
            return text
        }
    }
}
