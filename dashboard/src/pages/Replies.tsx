// Settings → Replies: the texts sent back to STOP, START and HELP. An empty box sends no reply (null in the API).
import { Fragment } from "preact";
import { useState } from "preact/hooks";
import { ok, type AccountSettings } from "../api.js";
import { SettingsPage, type SettingsFormProps } from "../settingsPage.js";
import { SegmentCount } from "../segments.js";
import { SubmitRow } from "../forms.js";
import { Field, fieldError, TitledForm, useAction, useNotice, useSession } from "../ui.js";

// Named, not keyof: the settings hold more than replies (the sending policy adds its own).
type ReplyKey = "optOutReply" | "optInReply" | "helpReply";

const REPLIES: { key: ReplyKey; label: string; hint: string }[] = [
  { key: "optOutReply", label: "Opt-out reply", hint: "Sent to STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT, REVOKE, OPTOUT." },
  { key: "optInReply", label: "Opt-in reply", hint: "Sent to START, UNSTOP, YES from a number on the opt-out list." },
  { key: "helpReply", label: "Help reply", hint: "Sent to HELP, INFO." },
];

function RepliesForm({ settings, onSaved }: SettingsFormProps) {
  const { client } = useSession();
  const [texts, setTexts] = useState<Record<ReplyKey, string>>({
    optOutReply: settings.optOutReply ?? "",
    optInReply: settings.optInReply ?? "",
    helpReply: settings.helpReply ?? "",
  });
  const [notice, setNotice] = useNotice();
  const save = useAction(async () => {
    setNotice(undefined);
    const orNull = (text: string) => (text.trim() ? text : null);
    const saved = await ok(
      client.PATCH("/api/v1/account/settings", {
        body: { optOutReply: orNull(texts.optOutReply), optInReply: orNull(texts.optInReply), helpReply: orNull(texts.helpReply) },
      }),
    );
    onSaved(saved);
    setNotice("Replies saved.");
  });
  return (
    <TitledForm titleId="replies-title" title="Automatic replies" onSubmit={() => void save.run()}>
      {REPLIES.map(({ key, label, hint }) => (
        <Field key={key} id={`reply-${key}`} label={label} hint={hint} error={fieldError(save.error, `/body/${key}`)}>
          <textarea
            id={`reply-${key}`}
            rows={2}
            maxLength={320}
            value={texts[key]}
            onInput={(e) => setTexts({ ...texts, [key]: e.currentTarget.value })}
            aria-describedby={`reply-${key}-hint reply-${key}-count`}
          />
          <SegmentCount text={texts[key]} id={`reply-${key}-count`} />
        </Field>
      ))}
      <SubmitRow action={save} failed="Not saved" busy="Saving…" notice={notice}>
        Save replies
      </SubmitRow>
    </TitledForm>
  );
}

function RepliesSummary({ settings }: { settings: AccountSettings }) {
  return (
    <dl class="facts">
      {REPLIES.map(({ key, label }) => (
        <Fragment key={key}>
          <dt>{label}</dt>
          <dd>{settings[key] ?? <span class="muted">no reply</span>}</dd>
        </Fragment>
      ))}
    </dl>
  );
}

export function Replies() {
  return (
    <SettingsPage
      title="Settings → Replies"
      form={RepliesForm}
      summary={RepliesSummary}
      intro={
        <>
          When a person texts a keyword to one of the account's numbers, the number answers with these texts (at most two segments: 306
          GSM-7 or 134 other characters). Leave a box empty to send no reply to that keyword; the opt-out itself still happens.
        </>
      }
    />
  );
}
