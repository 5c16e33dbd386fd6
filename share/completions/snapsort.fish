# fish completion for snapsort
set -l cmds scan report info demo groups agent status pause resume config roots forget decide undo review decks trash similar stats open serve remind help
complete -c snapsort -f
complete -c snapsort -l db -r -F -d 'library database'
complete -c snapsort -l quiet -d 'no progress output'
complete -c snapsort -l version -d 'print the version'
complete -c snapsort -n "not __fish_seen_subcommand_from $cmds" -a "$cmds"
complete -c snapsort -n '__fish_seen_subcommand_from scan report demo forget' -F
complete -c snapsort -n '__fish_seen_subcommand_from info' -F
complete -c snapsort -n '__fish_seen_subcommand_from decide' -a 'trash keep skip later'
complete -c snapsort -n '__fish_seen_subcommand_from trash' -a 'list commit restore'
complete -c snapsort -n '__fish_seen_subcommand_from roots' -a 'list add remove'
complete -c snapsort -n '__fish_seen_subcommand_from similar' -a 'keeper not-similar trash-rest'
complete -c snapsort -n '__fish_seen_subcommand_from status' -l format -xa 'waybar polybar i3blocks i3status-rust'
complete -c snapsort -n '__fish_seen_subcommand_from status' -l follow
complete -c snapsort -n '__fish_seen_subcommand_from remind' -l now -l next
complete -c snapsort -n '__fish_seen_subcommand_from groups' -a 'similar duplicate blurry oops screenshot document qr long_video downloaded_video heavy unreadable'
