# fish completion for snapsort. Kept in step with every command's --help by CompletionTests.
set -l cmds scan report info demo groups agent status pause resume config roots forget backup decide undo review decks trash similar stats open serve remind help
set -l groups similar duplicate blurry oops screenshot document qr long_video downloaded_video heavy unreadable people pets food scenery
complete -c snapsort -f
complete -c snapsort -l db -r -F -d 'library database'
complete -c snapsort -l quiet -d 'no progress output'
complete -c snapsort -l verbose -d 'more log output'
complete -c snapsort -l version -d 'print the version'
complete -c snapsort -l help -d 'print help'
complete -c snapsort -n "not __fish_seen_subcommand_from $cmds" -a "$cmds"
complete -c snapsort -n "__fish_seen_subcommand_from help" -a "$cmds"
complete -c snapsort -n '__fish_seen_subcommand_from scan report demo forget agent roots' -a '(__fish_complete_directories)'
complete -c snapsort -n '__fish_seen_subcommand_from info decide trash similar' -F
complete -c snapsort -n '__fish_seen_subcommand_from scan' -l jsonl -l quiet -l no-models -l no-groups
complete -c snapsort -n '__fish_seen_subcommand_from scan agent' -l workers -x
complete -c snapsort -n '__fish_seen_subcommand_from report' -l jsonl
complete -c snapsort -n '__fish_seen_subcommand_from info groups stats decks' -l json
complete -c snapsort -n '__fish_seen_subcommand_from demo' -l scan -l no-models
complete -c snapsort -n '__fish_seen_subcommand_from agent' -l no-web -l no-reminders -l no-models -l no-tray
complete -c snapsort -n '__fish_seen_subcommand_from agent status config' -l status-file -r -F
complete -c snapsort -n '__fish_seen_subcommand_from status' -l format -xa 'waybar polybar i3blocks i3status-rust'
complete -c snapsort -n '__fish_seen_subcommand_from status' -l follow -l json
complete -c snapsort -n '__fish_seen_subcommand_from config' -l path -l pictures-dir
complete -c snapsort -n '__fish_seen_subcommand_from roots' -a 'list add remove'
complete -c snapsort -n '__fish_seen_subcommand_from backup' -a 'list restore'
complete -c snapsort -n '__fish_seen_subcommand_from backup' -l json
complete -c snapsort -n '__fish_seen_subcommand_from decide' -a 'trash keep skip later'
complete -c snapsort -n '__fish_seen_subcommand_from undo' -l steps -x
complete -c snapsort -n '__fish_seen_subcommand_from undo' -l past-commit -d 'take back the decision before the last commit'
complete -c snapsort -n '__fish_seen_subcommand_from review' -l deck -x
complete -c snapsort -n '__fish_seen_subcommand_from review' -l new
complete -c snapsort -n '__fish_seen_subcommand_from decks' -l show -x
complete -c snapsort -n '__fish_seen_subcommand_from trash' -a 'list commit restore'
complete -c snapsort -n '__fish_seen_subcommand_from trash' -l yes -l all -l json
complete -c snapsort -n '__fish_seen_subcommand_from similar' -a 'keeper not-similar trash-rest marks unmark'
complete -c snapsort -n '__fish_seen_subcommand_from similar' -l all
complete -c snapsort -n '__fish_seen_subcommand_from open' -l deck -x
complete -c snapsort -n '__fish_seen_subcommand_from open' -l start -l new-key
complete -c snapsort -n '__fish_seen_subcommand_from open serve' -l print-url
complete -c snapsort -n '__fish_seen_subcommand_from serve' -l port -x
complete -c snapsort -n '__fish_seen_subcommand_from remind' -l now -l next -l wait
complete -c snapsort -n '__fish_seen_subcommand_from groups' -a "$groups"
