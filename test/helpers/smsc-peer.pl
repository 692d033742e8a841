#!/usr/bin/perl
# An SMSC nobody here wrote the protocol code of: Net::SMPP (Debian's libnet-smpp-perl) in the SMSC role, as in
# its example smsc.pl, extended for the chaos tests and run as ONE process (no fork per connection), so that a
# receipt can go out on any bound session, as a carrier's does:
# - binds transceivers (any credentials), answers enquire_link and unbind;
# - accepts every submit_sm with a fresh message_id and logs it on stdout:
#     SUBMIT <message_id> <destination_addr>
# - RECEIPT_DELAY_MS later sends a delivery receipt (deliver_sm, esm_class 0x04) on the most recent bound
#   session that still answers, with the destination as source_addr, the submit date (UTC, minute) and the
#   first 20 characters of the text; DELIVRD, or UNDELIV for destinations ending in 7; logged as
#     RECEIPT <message_id> <destination_addr> <stat>
#   A receipt not acknowledged (the session died first, or it was refused) is sent again later.
# - SIGUSR1: the sessions open now go silent for good (they still read and log submit_sm, but answer nothing),
#   as a link that drops; sessions opened later answer as usual.
# - Mobile-originated messages on command, one line on stdin each:
#     MO <tag> <source_addr> <destination_addr> <data_coding> <short_message as hex, or -> [option ...]
#   options: esm=<esm_class> (default 0), ston=<TON> / dton=<TON> (of source and destination, default 1),
#   dest=<destination_addr> (instead of the one given), sar=<ref>,<total>,<seqnum> (the SAR TLVs), payload=<hex>
#   (message_payload TLV), data_sm (send a data_sm instead of a deliver_sm). Sent on the same session as
#   receipts; logged as MOSENT <tag> <sequence_number>, and its response as MOACK <tag> <command_status>.
#   One refused (status not 0) or not answered before its session died is sent again RECEIPT_DELAY_MS later,
#   as an SMSC retries.
# - For bench:inbound: PEER_MO_SPREAD=1 sends MOs round-robin over the live sessions (receipts still go to the
#   newest), PEER_MO_WINDOW=N keeps at most N MOs unacknowledged per session, as a carrier's window does; each
#   bind is logged as BOUND <n>.
# Usage: perl smsc-peer.pl RECEIPT_DELAY_MS   (listens on a free port of 127.0.0.1, printed as LISTENING <port>)
use strict;
use warnings;
use Net::SMPP;
use IO::Select;
use POSIX qw(strftime);
use Time::HiRes qw(time);

my ($delay_ms) = @ARGV;
$delay_ms //= 500;
$| = 1;

my $listen = Net::SMPP->new_listen('127.0.0.1', port => 0, smpp_version => 0x34) or die "cannot listen: $!";
my $select = IO::Select->new($listen);
my (%session, %bound, %silent, %unacked);    # by fileno; %unacked: fileno => { seq => receipt }
my @pending;                                 # receipts to send: [due, id, destination, submit_date, text]
my (@mo, %mo_unacked);                       # MOs to send: [due, tag, command, fields]; %mo_unacked like %unacked
my $stdin_buffer = '';
my $next_id = 0;
my $bound_order = 0;

$SIG{USR1} = sub { $silent{$_} = 1 for keys %session; print "SILENCED " . scalar(keys %session) . "\n" };
$SIG{TERM} = sub { exit 0 };
$SIG{PIPE} = 'IGNORE';    # a write to a session whose worker was killed fails; the read then drops it

print "LISTENING " . $listen->sockport . "\n";

sub drop {
  my ($fh) = @_;
  my $fd = fileno($fh);
  # Receipts the session never acknowledged go out again on another session.
  push @pending, map { [time, @$_[1 .. 4]] } values %{ $unacked{$fd} || {} };
  @pending = sort { $a->[0] <=> $b->[0] } @pending;
  delete $unacked{$fd};
  unshift @mo, map { [time, @$_[1 .. 3]] } values %{ $mo_unacked{$fd} || {} };
  delete $mo_unacked{$fd};
  delete $session{$fd};
  delete $bound{$fd};
  delete $silent{$fd};
  $select->remove($fh);
  close $fh;
}

sub target {
  my @live = sort { $bound{$b} <=> $bound{$a} } grep { !$silent{$_} } keys %bound;
  return @live ? $session{ $live[0] } : undef;
}

my $mo_window = $ENV{PEER_MO_WINDOW} || 0;    # 0: no limit
my $mo_spread = $ENV{PEER_MO_SPREAD} || 0;
my $mo_turn = 0;

sub mo_target {
  my @live = sort { $bound{$b} <=> $bound{$a} } grep { !$silent{$_} } keys %bound;
  @live = ($live[0]) if @live && !$mo_spread;
  @live = grep { scalar(keys %{ $mo_unacked{$_} || {} }) < $mo_window } @live if $mo_window;
  return @live ? $session{ $live[ $mo_turn++ % @live ] } : undef;
}

sub send_due_receipts {
  while (@pending && $pending[0][0] <= time) {
    my $to = target() or return;
    my $r = shift @pending;
    my (undef, $id, $dest, $submitted, $text) = @$r;
    my $stat = $dest =~ /7$/ ? 'UNDELIV' : 'DELIVRD';
    my $done = strftime('%y%m%d%H%M', gmtime);
    my $seq = $to->deliver_sm(
      async => 1,
      source_addr_ton => 1, source_addr_npi => 1, source_addr => $dest,
      dest_addr_ton => 5, dest_addr_npi => 0, destination_addr => 'ACME',
      esm_class => 0x04,
      short_message => "id:$id sub:001 dlvrd:001 submit date:$submitted done date:$done stat:$stat err:000 text:$text",
    );
    $unacked{ fileno($to) }{$seq} = $r;
    print "RECEIPT $id $dest $stat\n";
  }
}

# MO <tag> <from> <to> <data_coding> <hex|-> [esm=N] [ston=N] [dton=N] [dest=addr] [sar=ref,total,seq] [payload=hex] [data_sm]
sub parse_mo {
  my ($line) = @_;
  my (undef, $tag, $from, $to, $coding, $hex, @options) = split ' ', $line;
  my %fields = (
    source_addr_ton => 1, source_addr_npi => 1, source_addr => $from,
    dest_addr_ton => 1, dest_addr_npi => 1, destination_addr => $to,
    esm_class => 0, data_coding => $coding,
  );
  my $command = 'deliver_sm';
  my @tlvs;
  for (@options) {
    if (/^esm=(\d+)$/) { $fields{esm_class} = $1 }
    elsif (/^ston=(\d+)$/) { $fields{source_addr_ton} = $1 }
    elsif (/^dton=(\d+)$/) { $fields{dest_addr_ton} = $1 }
    elsif (/^dest=(\S+)$/) { $fields{destination_addr} = $1 }
    elsif (/^sar=(\d+),(\d+),(\d+)$/) {
      push @tlvs, sar_msg_ref_num => pack('n', $1), sar_total_segments => pack('C', $2), sar_segment_seqnum => pack('C', $3);
    }
    elsif (/^payload=([0-9a-fA-F]*)$/) { push @tlvs, message_payload => pack('H*', $1) }
    elsif ($_ eq 'data_sm') { $command = 'data_sm' }
    else { print "MOERROR $tag unknown option $_\n"; return }
  }
  $fields{short_message} = $hex eq '-' ? '' : pack('H*', $hex) if $command eq 'deliver_sm';
  push @mo, [time, $tag, $command, [%fields, @tlvs]];
}

sub read_stdin {
  my $n = sysread(STDIN, my $chunk, 65536);
  if (!$n) { $select->remove(\*STDIN); return }    # end of input: no more commands
  $stdin_buffer .= $chunk;
  while ($stdin_buffer =~ s/^([^\n]*)\n//) {
    my $line = $1;
    parse_mo($line) if $line =~ /^MO /;
  }
}

sub send_due_mos {
  while (@mo && $mo[0][0] <= time) {
    my $to = mo_target() or return;
    my $m = shift @mo;
    my (undef, $tag, $command, $fields) = @$m;
    my $seq = $command eq 'data_sm' ? $to->data_sm(async => 1, @$fields) : $to->deliver_sm(async => 1, @$fields);
    $mo_unacked{ fileno($to) }{$seq} = $m;
    print "MOSENT $tag $seq\n";
  }
}

$select->add(\*STDIN);

while (1) {
  send_due_receipts();
  send_due_mos();
  my $wait = @pending ? ($pending[0][0] - time) : 0.5;
  $wait = $mo[0][0] - time if @mo && $mo[0][0] - time < $wait;
  $wait = 0.05 if $wait < 0.05;
  for my $fh ($select->can_read($wait)) {
    if (fileno($fh) == fileno(STDIN)) {
      read_stdin();
      next;
    }
    if ($fh == $listen) {
      my $c = $listen->accept or next;
      $select->add($c);
      $session{ fileno($c) } = $c;
      next;
    }
    my $fd = fileno($fh);
    my $pdu = $fh->read_pdu();
    if (!$pdu) { drop($fh); next; }
    my $cmd = $pdu->{cmd};
    my $quiet = $silent{$fd};
    if ($cmd == 0x00000009) {    # bind_transceiver
      next if $quiet;
      $fh->set_version(0x34);
      $fh->bind_transceiver_resp(system_id => 'PEER', seq => $pdu->{seq});
      $bound{$fd} = ++$bound_order;
      print "BOUND $bound_order\n";
    } elsif ($cmd == 0x00000004) {    # submit_sm
      my $id = sprintf('P%06d', ++$next_id);
      my $text = substr($pdu->{short_message} // '', 0, 20);
      $text =~ s/[^\x20-\x7e]/?/g;
      print "SUBMIT $id $pdu->{destination_addr}\n";
      push @pending, [time + $delay_ms / 1000, $id, $pdu->{destination_addr}, strftime('%y%m%d%H%M', gmtime), $text];
      $fh->submit_sm_resp(message_id => $id, seq => $pdu->{seq}) unless $quiet;
    } elsif ($cmd == 0x00000015) {    # enquire_link
      $fh->enquire_link_resp(seq => $pdu->{seq}) unless $quiet;
    } elsif ($cmd == 0x00000006) {    # unbind
      $fh->unbind_resp(seq => $pdu->{seq}) unless $quiet;
      drop($fh);
    } elsif (($cmd == 0x80000005 || $cmd == 0x80000103) && (my $m = delete $mo_unacked{$fd}{ $pdu->{seq} })) {
      print "MOACK $m->[1] $pdu->{status}\n";    # the response to an MO: deliver_sm_resp or data_sm_resp
      if ($pdu->{status} != 0) {
        push @mo, [time + $delay_ms / 1000, @$m[1 .. 3]];
        @mo = sort { $a->[0] <=> $b->[0] } @mo;
      }
    } elsif ($cmd == 0x80000005) {    # deliver_sm_resp
      my $r = delete $unacked{$fd}{ $pdu->{seq} };
      if ($r && $pdu->{status} != 0) {
        push @pending, [time + $delay_ms / 1000, @$r[1 .. 4]];
        @pending = sort { $a->[0] <=> $b->[0] } @pending;
      }
    }
  }
}
