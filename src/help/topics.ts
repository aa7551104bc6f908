// The help topics that are not groups of commands: `mfg help environment` and
// `mfg help exit-codes`. Each lists what the code really reads or returns; when a
// variable or an exit code is added, its line belongs here (test/help checks both
// lists against the sources).
import type {Guide} from './render.js'

export const GUIDES: Record<string, Guide> = {
  environment: {
    summary: 'The environment variables mfg reads',
    sections: [
      {
        title: 'CONNECTION',
        rows: [
          ['MFG_PROFILE', 'The profile to use when --profile is not given.'],
          [
            'MFG_BASE_URL',
            'The service\'s address, over the profile\'s. Set with no profile chosen, it makes a profile named "env" from these variables alone. Not applied to the embedded sandbox "local".',
          ],
          ['MFG_API_KEY', "The API key (pk_business_...), over the profile's."],
          ['MFG_AUTH_TOKEN', "The v2 auth token, over the profile's."],
          ['MFG_BUSINESS_ID', "The business id, over the profile's."],
          ['MFG_INSECURE', '1, true or yes: send the key and token over plain http to another machine, as --insecure.'],
          ['MFG_TIMEOUT', 'Seconds for each attempt of a request, as --timeout (default 30).'],
          [
            'MFG_TOTAL_TIMEOUT',
            'Seconds for the whole command, retries included (as --total-timeout); unset, a command stops after 30 s spent failing.',
          ],
          ['MFG_WEBHOOK_SECRET', 'The webhook secret, when --secret is not given.'],
          [
            'HTTPS_PROXY, HTTP_PROXY',
            'A proxy URL (http://user:password@host:port) for https:// and http:// services, upper or lower case, as curl and gh read them; https goes through a CONNECT tunnel, so TLS still ends at the service. This machine (localhost, 127.0.0.1, ::1) is always reached directly.',
          ],
          ['NO_PROXY', 'Hosts reached directly: names, domains (example.com or .example.com covers its hosts) or *.'],
        ],
      },
      {
        title: 'FILES',
        rows: [
          [
            'MFG_HOME',
            "One directory for everything mfg writes: profiles, journals, the embedded sandbox's database and oclif's cache, data and config.",
          ],
          [
            'XDG_CONFIG_HOME, XDG_DATA_HOME',
            'Where profiles and data go without MFG_HOME (Linux and other Unix systems; ~/Library on macOS, APPDATA and LOCALAPPDATA on Windows).',
          ],
          [
            'MFG_CACHE_DIR, MFG_DATA_DIR, MFG_CONFIG_DIR',
            "oclif's own directories (under MFG_HOME/oclif when MFG_HOME is set). Node's compile cache is kept in MFG_CACHE_DIR/compile.",
          ],
        ],
      },
      {
        title: 'SANDBOX AND PARTS',
        rows: [
          ['MFG_SANDBOX_QUIRKS', "The embedded sandbox's quirks, as `sandbox serve --quirks` takes them."],
          ['MFG_PRUSA_SLICER', 'The prusa-slicer program for `price estimate --slicer prusa` (else found on PATH).'],
        ],
      },
      {
        title: 'OUTPUT',
        rows: [
          ['NO_COLOR', 'Any value but empty turns colours off (they are on only when stdout is a terminal).'],
          [
            'CI',
            'Set (and not "false" or "0"): never prompt; a missing value is an error naming its flag. Prompts also need stdin and stderr to be terminals.',
          ],
          ['COLUMNS', 'The width of help pages when stdout is not a terminal (default 80).'],
          ['MFG_CONTENT_TYPE', 'json: every command prints JSON, as with --json (oclif).'],
          ['MFG_DEBUG, DEBUG', "oclif's debugging output (DEBUG=oclif* for its trace lines)."],
        ],
      },
    ],
    notes: 'A flag given on the command line wins over its variable; a variable wins over the stored profile.',
  },
  'exit-codes': {
    summary: "What mfg's exit codes mean",
    sections: [
      {
        title: 'EXIT CODES',
        rows: [
          ['0', 'Success.'],
          [
            '1',
            'The service or the network failed (4xx other than 401, 5xx, connection errors, a time limit), some rows of a batch failed, the service answered `mfg demand stage` with another stage than the one asked for, or a check of `mfg doctor` failed.',
          ],
          [
            '2',
            'Usage error (an unknown flag, a missing or bad argument, help asked for something that does not exist) or invalid input; nothing was sent.',
          ],
          ['3', 'Authentication failed: the key or token is missing or rejected (401).'],
          [
            '4',
            '`mfg demand quote`: at least one demand was skipped (a guard, or a part that could not be downloaded, read or priced); the others were quoted.',
          ],
          [
            '5',
            '--jq failed on the data: its expression stopped with an error (`error(...)`, a type error; what it printed before stays on stdout) or `mfg api` got an answer that is not JSON.',
          ],
          [
            '127',
            'No such command (the closest ones are named; at a terminal oclif\'s "not found" plugin offers to run one).',
          ],
          ['130', 'Interrupted (Ctrl-C).'],
          ['143', 'Terminated (SIGTERM).'],
        ],
      },
    ],
    notes:
      'With --json, a failure is described on stderr as {"error": {"code", "message", ...}} and stdout stays empty or valid data.',
  },
}
