# bash completion for snapsort. Kept in step with every command's --help by CompletionTests.
_snapsort() {
    local cur prev cmd i
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    local commands="scan report info demo groups agent status pause resume config roots forget backup decide undo review decks trash similar stats open serve remind help"
    local groups="similar duplicate blurry oops screenshot document qr long_video downloaded_video heavy unreadable people pets food scenery"
    cmd=""
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            --db) ((i++)) ;;
            -*) ;;
            *) cmd=${COMP_WORDS[i]}; break ;;
        esac
    done
    # File and folder names one per line (photo folders have spaces: "Camera Roll"), quoted by
    # bash, folders ending in a slash.
    _snapsort_paths() {
        local IFS=$'\n'
        compopt -o filenames 2>/dev/null
        COMPREPLY+=($(compgen "$1" -- "$cur"))
    }
    _snapsort_words() { COMPREPLY+=($(compgen -W "$1" -- "$cur")); }
    COMPREPLY=()
    case $prev in
        --db | --status-file) _snapsort_paths -f; return ;;
        --format) _snapsort_words "waybar polybar i3blocks i3status-rust"; return ;;
        --workers | --steps | --port) return ;;
    esac
    if [[ -z $cmd ]]; then
        _snapsort_words "$commands --db --quiet --verbose --version --help"
        return
    fi
    case $cmd in
        scan) [[ $cur == -* ]] && _snapsort_words "--jsonl --quiet --workers --no-models --no-groups --help" || _snapsort_paths -d ;;
        report) [[ $cur == -* ]] && _snapsort_words "--jsonl --help" || _snapsort_paths -d ;;
        info) [[ $cur == -* ]] && _snapsort_words "--json --help" || _snapsort_paths -f ;;
        demo) [[ $cur == -* ]] && _snapsort_words "--scan --no-models --help" || _snapsort_paths -d ;;
        forget) _snapsort_paths -d ;;
        backup) if [[ $prev == backup ]]; then _snapsort_words "list restore"; else _snapsort_words "--json"; fi ;;
        groups) _snapsort_words "$groups --json" ;;
        agent) [[ $cur == -* ]] && _snapsort_words "--no-web --no-reminders --no-models --no-tray --workers --status-file --help" || _snapsort_paths -d ;;
        status) _snapsort_words "--json --format --follow --status-file" ;;
        pause) _snapsort_words "1h 2h 8h 1d" ;;
        config) _snapsort_words "--path --pictures-dir --status-file" ;;
        roots) if [[ $prev == roots ]]; then _snapsort_words "list add remove"; else _snapsort_paths -d; fi ;;
        decide) if [[ $prev == decide ]]; then _snapsort_words "trash keep skip later"; else _snapsort_paths -f; fi ;;
        undo) _snapsort_words "--steps --past-commit" ;;
        review) _snapsort_words "--deck --new" ;;
        decks) _snapsort_words "--json --show" ;;
        trash)
            if [[ $prev == trash ]]; then _snapsort_words "list commit restore"
            elif [[ $cur == -* ]]; then _snapsort_words "--yes --all --json"
            else _snapsort_paths -f; fi ;;
        similar) if [[ $prev == similar ]]; then _snapsort_words "keeper not-similar trash-rest marks unmark"; elif [[ $cur == -* ]]; then _snapsort_words "--all"; else _snapsort_paths -f; fi ;;
        stats) _snapsort_words "--json" ;;
        open) _snapsort_words "--print-url --deck --start --new-key" ;;
        serve) _snapsort_words "--port --print-url" ;;
        remind) _snapsort_words "--now --next --wait" ;;
        help) _snapsort_words "$commands" ;;
    esac
}
complete -F _snapsort snapsort
