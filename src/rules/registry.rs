//! The one table of rules, in code order. A code is never reused: retire a rule by removing its
//! row and leaving its code unassigned.

use super::Rule;
use super::acp_frame_incomplete::AcpFrameIncomplete;
use super::bad_title_shape::BadTitleShape;
use super::error_on_success::ErrorOnSuccess;
use super::events_incoherent::EventsIncoherent;
use super::failed_shown_complete::FailedShownComplete;
use super::guessed_name::GuessedName;
use super::incoherent_kind::IncoherentKind;
use super::input_not_preserved::InputNotPreserved;
use super::invented_timing::InventedTiming;
use super::legacy_view_inconsistent::LegacyViewInconsistent;
use super::lost_call::LostCall;
use super::mcp_identity::McpIdentity;
use super::metadata_detail_lost::MetadataDetailLost;
use super::output_on_error::OutputOnError;
use super::oversized_metadata::OversizedMetadata;
use super::raw_name_title::RawNameTitle;
use super::running_after_turn_end::RunningAfterTurnEnd;
use super::state_regressed::StateRegressed;
use super::unstable_id::UnstableId;
use super::wire_result_missing::WireResultMissing;
use super::wire_sequence_rejected::WireSequenceRejected;
use super::wire_state_misshown::WireStateMisshown;

pub(super) static RULES: &[&dyn Rule] = &[
    &UnstableId,             // TN001 contract rule 1
    &GuessedName,            // TN002 contract rule 2
    &IncoherentKind,         // TN003 contract rule 3
    &RawNameTitle,           // TN004 contract rule 4
    &InputNotPreserved,      // TN005 contract rule 5
    &OutputOnError,          // TN006 contract rule 6
    &ErrorOnSuccess,         // TN007 contract rule 7
    &MetadataDetailLost,     // TN008 contract rule 8
    &OversizedMetadata,      // TN009 contract rule 9
    &LostCall,               // TN010
    &FailedShownComplete,    // TN011
    &StateRegressed,         // TN012 lifecycle
    &RunningAfterTurnEnd,    // TN013 lifecycle
    &LegacyViewInconsistent, // TN014 compatibility
    &AcpFrameIncomplete,     // TN015 compatibility
    &BadTitleShape,          // TN016 title quality
    &McpIdentity,            // TN017
    &InventedTiming,         // TN018
    &EventsIncoherent,       // TN019
    &WireSequenceRejected,   // TN020 wire
    &WireResultMissing,      // TN021 wire
    &WireStateMisshown,      // TN022 wire
];
