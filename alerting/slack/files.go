package slack

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	slackapi "github.com/slack-go/slack"

	"github.com/pricewatch/pricewatch/alerting"
)

// PostWithAttachment implements alerting.AttachmentNotifier: it posts the
// message and shares the file stored with it (the digest's chart) as a
// reply in the message's thread, through Slack's external upload flow
// (files.getUploadURLExternal, the upload itself, files.completeUploadExternal;
// files.upload is gone).
//
// The steps are ordered so that a retry never posts the message twice: the
// file is uploaded first, which shows nothing in Slack until the upload is
// completed, so a failure there is retried like any failed post. Once the
// message is posted, a failure to share the file is reported as an
// alerting.IncompleteError (delivered, not retried). A file Slack refuses
// for good (no files:write scope) and a webhook, which cannot send files,
// also deliver the message alone and say so.
func (n *Notifier) PostWithAttachment(ctx context.Context, channel string, payload, attachment []byte) error {
	return n.secrets.Error(n.postWithAttachment(ctx, channel, payload, attachment))
}

func (n *Notifier) postWithAttachment(ctx context.Context, channel string, payload, attachment []byte) error {
	p, err := n.payload(payload, len(attachment) > 0)
	if err != nil {
		return err
	}
	if len(attachment) == 0 || p.File == nil {
		_, err := n.send(ctx, channel, p)
		return err
	}
	if n.api == nil {
		if err := n.postWebhook(ctx, p); err != nil {
			return err
		}
		return &alerting.IncompleteError{Err: errors.New("file " + p.File.Name + " not sent: an incoming webhook cannot upload files (configure a bot token with files:write)")}
	}
	if channel == "" {
		return alerting.Permanent(errors.New("chat.postMessage: no channel"), alerting.ScopeChannel,
			"set digest.channel or slack.channel (a channel ID such as C0123ABCD)")
	}
	fileID, upErr := n.upload(ctx, channel, p.File, attachment)
	if upErr != nil {
		pe, permanent := alerting.IsPermanent(upErr)
		if !permanent || (pe.Scope == alerting.ScopeAll && !isFilesScope(pe)) {
			return upErr
		}
	}
	rcpt, err := n.postAPI(ctx, channel, p)
	if err != nil {
		return err
	}
	if upErr != nil {
		pe, _ := alerting.IsPermanent(upErr)
		return &alerting.IncompleteError{Err: fmt.Errorf("message posted without its file %s: %v (fix: %s)", p.File.Name, upErr, pe.Fix)}
	}
	_, err = n.api.CompleteUploadExternalContext(ctx, slackapi.CompleteUploadExternalParameters{
		Files:           []slackapi.FileSummary{{ID: fileID, Title: p.File.Title}},
		Channel:         rcpt.Channel,
		ThreadTimestamp: rcpt.Timestamp,
	})
	if err != nil {
		cerr := n.classifyCall(ctx, "files.completeUploadExternal", channel, err)
		msg := fmt.Sprintf("message posted but its file %s was not shared: %v", p.File.Name, cerr)
		if pe, ok := alerting.IsPermanent(cerr); ok {
			msg += " (fix: " + pe.Fix + ")"
		}
		return &alerting.IncompleteError{Err: errors.New(msg)}
	}
	return nil
}

// upload sends the file's bytes to Slack and returns its file ID. Nothing
// is visible in any channel until the upload is completed.
func (n *Notifier) upload(ctx context.Context, channel string, f *FileInfo, data []byte) (string, error) {
	u, err := n.api.GetUploadURLExternalContext(ctx, slackapi.GetUploadURLExternalParameters{
		FileName: f.Name, FileSize: len(data), AltTxt: f.AltText,
	})
	if err != nil {
		return "", n.classifyCall(ctx, "files.getUploadURLExternal", channel, err)
	}
	if u.UploadURL == "" || u.FileID == "" {
		return "", fmt.Errorf("files.getUploadURLExternal to %s: Slack returned no upload URL", channel)
	}
	err = n.api.UploadToURL(ctx, slackapi.UploadToURLParameters{UploadURL: u.UploadURL, Reader: bytes.NewReader(data), Filename: f.Name})
	if err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("uploading %s: %w", f.Name, ctx.Err())
		}
		// The upload URL is Slack's own (checked by slack-go before the
		// token is sent); a failure there is worth retrying.
		return "", fmt.Errorf("uploading %s: %s", f.Name, n.describe(err))
	}
	return u.FileID, nil
}

// isFilesScope reports whether a permanent error is the missing files:write
// scope, which stops the file but not the message.
func isFilesScope(pe *alerting.PermanentError) bool { return pe.Fix == filesScopeFix }
