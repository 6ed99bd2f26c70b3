# bash completion for iolens: commands, then the options of the command (from its own --help),
# then file names. Installed as share/bash-completion/completions/iolens.
_iolens()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prog=${COMP_WORDS[0]} cmd= i
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
        -*) ;;
        *) cmd=${COMP_WORDS[i]}; break ;;
        esac
    done
    if [ -z "$cmd" ]; then
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W "--help --version" -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$("$prog" help 2>/dev/null | awk '/^commands:/ {f = 1; next} f && NF {print $1}')" -- "$cur"))
        fi
        return
    fi
    # after `--` (iolens trace -- COMMAND ...): the command and its files
    for ((i = 1; i < COMP_CWORD; i++)); do
        if [ "${COMP_WORDS[i]}" = -- ]; then
            COMPREPLY=($(compgen -c -f -- "$cur"))
            return
        fi
    done
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$("$prog" "$cmd" --help 2>/dev/null | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)" -- "$cur"))
        return
    fi
    COMPREPLY=($(compgen -f -- "$cur"))
    compopt -o filenames 2>/dev/null
}
complete -F _iolens iolens
