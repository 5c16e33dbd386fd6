# bash completion for snapsort
_snapsort() {
    local cur prev cmd
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    local commands="scan report info demo groups agent status pause resume config roots forget decide undo review decks trash similar stats open serve remind help"
    cmd=""
    local i
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            --db) ((i++)) ;;
            -*) ;;
            *) cmd=${COMP_WORDS[i]}; break ;;
        esac
    done
    if [[ $prev == --db ]]; then COMPREPLY=($(compgen -f -- "$cur")); return; fi
    if [[ -z $cmd ]]; then
        COMPREPLY=($(compgen -W "$commands --db --quiet --verbose --version --help" -- "$cur"))
        return
    fi
    case $cmd in
        scan) COMPREPLY=($(compgen -d -- "$cur") $(compgen -W "--jsonl --quiet --workers --help" -- "$cur")) ;;
        report) COMPREPLY=($(compgen -d -- "$cur") $(compgen -W "--jsonl --help" -- "$cur")) ;;
        info) COMPREPLY=($(compgen -f -- "$cur") $(compgen -W "--json --help" -- "$cur")) ;;
        demo|forget) COMPREPLY=($(compgen -d -- "$cur")) ;;
        groups) COMPREPLY=($(compgen -W "similar duplicate blurry oops screenshot document qr long_video downloaded_video heavy unreadable --json" -- "$cur")) ;;
        status) if [[ $prev == --format ]]; then COMPREPLY=($(compgen -W "waybar polybar i3blocks i3status-rust" -- "$cur")); else COMPREPLY=($(compgen -W "--format --follow --json" -- "$cur")); fi ;;
        roots) COMPREPLY=($(compgen -W "list add remove" -- "$cur") $(compgen -d -- "$cur")) ;;
        decide) if [[ $prev == decide ]]; then COMPREPLY=($(compgen -W "trash keep skip later" -- "$cur")); else COMPREPLY=($(compgen -f -- "$cur")); fi ;;
        trash) COMPREPLY=($(compgen -W "list commit restore --yes --all" -- "$cur") $(compgen -f -- "$cur")) ;;
        similar) COMPREPLY=($(compgen -W "keeper not-similar trash-rest --all" -- "$cur")) ;;
        stats) COMPREPLY=($(compgen -W "--json" -- "$cur")) ;;
        open) COMPREPLY=($(compgen -W "--print-url" -- "$cur")) ;;
        remind) COMPREPLY=($(compgen -W "--now --next" -- "$cur")) ;;
        help) COMPREPLY=($(compgen -W "$commands" -- "$cur")) ;;
    esac
}
complete -F _snapsort snapsort
