/// @file substitutes.hpp
/// Generated stand-ins for the paper's two real-data tuning objectives (specs/fed-pne.md §9):
/// "landmine-like substitute (generated)" (RBF-SVM tuning on imbalanced per-client data) and
/// "digits substitute for MNIST (generated)" (MLP tuning on synthetic 8×8 digit glyphs). Neither
/// uses the real data sets; both are deterministic given the seed and cached per (client, x).
#pragma once

#include <cstdint>
#include <memory>

#include <Eigen/Dense>

#include "gpbandit/xarmed/objective.hpp"

namespace gpb::xarmed {

/// One client's binary or multi-class data: columns are samples (features × n), labels 0..K−1.
struct ClientData {
  Eigen::MatrixXd train_x;  ///< features × n_train
  Eigen::VectorXi train_y;  ///< n_train labels
  Eigen::MatrixXd test_x;   ///< features × n_test
  Eigen::VectorXi test_y;   ///< n_test labels
};

/// Landmine-like field `field` (0-based) of the generated set: 9 features, ≈6 % positives
/// (label 1), a field-specific shift of both classes, positives in three small off-centre
/// clusters (non-linear boundary); `n` samples split 50/50 train/test, stratified. O(n).
ClientData landmine_like_field(std::uint64_t seed, int field, int n = 300);

/// Digits-like shard of client `client`: 8×8 glyphs of 10 digit classes (pixels in [0,1])
/// drawn from stroke templates with a random affine deformation, stroke width and pixel noise;
/// `n_train` / `n_test` images, classes uniform (iid shards). O(n·64).
ClientData digits_like_shard(std::uint64_t seed, int client, int n_train = 150, int n_test = 30);

/// AUC-ROC of `score` (larger = positive) against 0/1 `label`; ties by average rank.
/// @throws InvalidArgument when one class is absent. O(n log n).
double auc_roc(const Eigen::VectorXd& score, const Eigen::VectorXi& label);

/// AUC-ROC on d.test of the decision values of an RBF C-SVC (libsvm, kernel exp(−γ‖u−v‖²))
/// trained on d.train with parameters (γ, C); labels 0/1. @throws InvalidArgument when built
/// without libsvm.
double svm_auc(const ClientData& d, double gamma, double C);

/// Test accuracy of a 64–64–10 ReLU MLP trained by SGD (batch size, learning rate, L2 weight
/// decay, `epochs` epochs, Glorot-uniform init from `init_seed`) on d.train. O(epochs·n·64·74).
double mlp_accuracy(const ClientData& d, int batch, double lr, double weight_decay, int epochs,
                    std::uint64_t init_seed);

/// Builds "landmine_svm" or "digits_classifier" (make_objective forwards to this).
/// @throws InvalidArgument for any other type, or landmine_svm without libsvm.
std::shared_ptr<const FedObjective> make_substitute(const ObjectiveSpec& spec);

}  // namespace gpb::xarmed
