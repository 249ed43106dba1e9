/**
 * How the help is arranged: commands in groups, and the options many commands share on pages of
 * their own (`payouts help options|checks|tuning`), so a command's page shows what is its own and
 * what it is used with daily, and no option is explained on twenty pages.
 */

export interface Group {
  readonly title: string
  readonly commands: ReadonlyArray<readonly [name: string, summary: string]>
}

/** Every command once, in the order a new user meets them, each with one line. */
export const GROUPS: ReadonlyArray<Group> = [
  {
    title: "Pay",
    commands: [
      ["run", "Pay every row of a CSV exactly once and write its ledger"],
      ["validate", "Check a CSV and the balance; pays nothing"],
      ["retry", "Pay again a finished batch's failed rows, as a new batch"]
    ]
  },
  {
    title: "Operate",
    commands: [
      ["watch", "Pay each CSV dropped in a job folder (schedule, approval, service)"],
      ["approve", "Approve a batch waiting for approval"],
      ["reject", "Drop a batch waiting for approval; it is never paid"],
      ["resume", "Clear a batch's pause so the next run continues it"],
      ["resolve", "Settle the rows a run could not prove (exit 5)"],
      ["reconcile", "Compare a batch, or the account, with the service"],
      ["halt", "Stop every payout of the account, or lift the stop"],
      ["console", "Serve the web console: batches live, approvals, decisions"],
      ["users", "Manage the people who may sign in to the console"]
    ]
  },
  {
    title: "Inspect",
    commands: [
      ["batches", "List the batches with their state and counts"],
      ["ledger", "Write a batch's ledger, summary and report again"],
      ["workers", "List the watch workers sharing the state store"],
      ["wallet", "Show every wallet's balances"],
      ["summary", "Show balances and the last 30 days' activity"],
      ["transactions", "List the wallet's transactions, newest first"],
      ["status", "Look up a payout or pay-in by its reference"]
    ]
  },
  { title: "Sandbox", commands: [["sandbox", "Run the local sandbox of the payment API"]] },
  { title: "Configure", commands: [["config", "Show the settings in effect and where each came from"]] }
]

export interface Topic {
  readonly name: string
  readonly title: string
  readonly intro: string
  /** The options it explains, by long name; each is explained as the first command that takes it does. */
  readonly options: ReadonlyArray<string>
  readonly more?: ReadonlyArray<string>
}

export const TOPICS: ReadonlyArray<Topic> = [
  {
    name: "options",
    title: "Connection and store options",
    intro: "Taken by every command that talks to the service or reads the state store. Each can also come "
      + "from the environment variable it names or from a profile (payouts config shows which won).",
    options: ["--profile", "--base-url", "--api-key", "--api-secret", "--state", "--sandbox", "--time-scale", "--rate", "--request-timeout", "--callback-url", "--return-url", "--cancel-url"],
    more: [
      "Short flags: -p --profile, -o --out, -j --json, -y --yes, -c --concurrency.",
      "Program options: -h, --help (this help; payouts help COMMAND), --version, --completions SHELL (bash, zsh, fish, sh), --log-level LEVEL, --utc (times in UTC)."
    ]
  },
  {
    name: "checks",
    title: "Checks before paying (run, validate, retry, watch)",
    intro: "What a file must pass before anything is paid, and the limits a batch must stay within. "
      + "A refused file pays nothing (exit 2); validate shows what run would refuse.",
    options: ["--skip-invalid", "--allow-repeats", "--allow-shared-phone", "--repeat-window", "--on-insufficient", "--fee-estimate", "--max-payout", "--max-batch-total", "--daily-cap", "--phone-daily-limit"]
  },
  {
    name: "tuning",
    title: "Tuning a run (run, retry, watch)",
    intro: "How fast payouts are sent and followed, when an unknown outcome is reconciled, and when the "
      + "run stops itself. The defaults suit a real service; change them for a reason.",
    options: [
      "--concurrency", "--poll-interval", "--poll-max", "--track-timeout", "--reconcile-grace", "--reconcile-deadline", "--resend-unknown",
      "--lease-ttl", "--ledger-every", "--progress-every", "--output-retry", "--stop-min-settled", "--stop-failure-ratio", "--breaker-failures",
      "--breaker-probe", "--stuck-after"
    ]
  }
]

/** Options of a topic a command's own page still shows: the ones used with it daily. */
export const DAILY: Readonly<Record<string, ReadonlyArray<string>>> = {
  run: ["--skip-invalid", "--concurrency"],
  validate: ["--skip-invalid", "--allow-repeats", "--allow-shared-phone", "--on-insufficient", "--fee-estimate", "--max-payout", "--max-batch-total", "--daily-cap"],
  retry: ["--concurrency"],
  watch: ["--concurrency"],
  ledger: [],
  reconcile: []
}

/** Real command lines for each command's page; `#` starts what the line does. */
export const EXAMPLES: Readonly<Record<string, ReadonlyArray<string>>> = {
  run: [
    "payouts run sellers.csv --sandbox          # rehearse against a sandbox in this process",
    "payouts run sellers.csv                    # pay, with PAYOUTS_BASE_URL, _API_KEY, _API_SECRET set",
    "payouts run sellers.csv -o out/ -j         # outputs in out/, the summary as JSON"
  ],
  validate: ["payouts validate sellers.csv --sandbox", "payouts validate sellers.csv --max-payout XAF:500000"],
  retry: ["payouts retry 3f2a9c1e0b7d4e21", "payouts retry 3f2a9c1e0b7d4e21 --fix corrected.csv"],
  watch: [
    "payouts watch /srv/payouts/jobs",
    "payouts watch --schedule '0 9 * * 1-5' --require-approval --approvers alice,bob",
    "payouts watch --once                       # what is waiting, then exit"
  ],
  approve: ["payouts approve 3f2a9c1e0b7d4e21 --by alice"],
  reject: ["payouts reject 3f2a9c1e0b7d4e21 --by alice --reason 'wrong week'"],
  resume: ["payouts resume 3f2a9c1e0b7d4e21"],
  resolve: [
    "payouts resolve 3f2a9c1e0b7d4e21                          # the rows that need a person",
    "payouts resolve 3f2a9c1e0b7d4e21 --line 12 --resend --by alice --reason 'not in the listing'",
    "payouts resolve 3f2a9c1e0b7d4e21 --all-unknown --abandon --by alice --reason 'paid by hand'"
  ],
  reconcile: ["payouts reconcile 3f2a9c1e0b7d4e21", "payouts reconcile --account"],
  halt: ["payouts halt --by alice --reason 'wrong file sent'", "payouts halt --lift --by alice", "payouts halt"],
  batches: ["payouts batches", "payouts batches -j"],
  ledger: ["payouts ledger 3f2a9c1e0b7d4e21 -o out/"],
  workers: ["payouts workers --jobs /srv/payouts/jobs"],
  wallet: ["payouts wallet", "payouts wallet -j"],
  summary: ["payouts summary"],
  transactions: ["payouts transactions --all --from 2026-11-01 --status failed", "payouts transactions --currency XAF -j"],
  status: ["payouts status PO-20261127-0001"],
  sandbox: ["payouts sandbox", "payouts sandbox --time-scale 60 --faults 'payout.error_after=0.1'"],
  config: ["payouts config", "payouts config -p live -j"],
  console: [
    "payouts console --jobs /srv/payouts/jobs                  # on http://127.0.0.1:8470/",
    "payouts console --listen 0.0.0.0:8443 --tls-cert cert.pem --tls-key key.pem"
  ],
  users: ["payouts users add alice --role operator --password-stdin < alice.txt", "payouts users list", "payouts users remove alice"]
}

/** Where the manual explains each command (docs/ in the source tree). */
export const MANUAL: Readonly<Record<string, string>> = {
  run: "docs/paying.md",
  validate: "docs/paying.md",
  retry: "docs/paying.md",
  watch: "docs/job-folder.md",
  approve: "docs/job-folder.md",
  reject: "docs/job-folder.md",
  resume: "docs/job-folder.md",
  halt: "docs/job-folder.md",
  resolve: "docs/unknown-outcomes.md",
  reconcile: "docs/unknown-outcomes.md",
  batches: "docs/outputs.md",
  ledger: "docs/outputs.md",
  workers: "docs/several-machines.md",
  wallet: "docs/real-service.md",
  summary: "docs/real-service.md",
  transactions: "docs/real-service.md",
  status: "docs/real-service.md",
  sandbox: "docs/sandbox.md",
  config: "docs/configuration.md",
  console: "docs/console.md",
  users: "docs/console.md"
}

export const topicOf = (option: string): Topic | undefined => TOPICS.find((topic) => topic.options.includes(option))
